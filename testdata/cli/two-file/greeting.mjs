export function greeting(who) {
  return `hello, ${who}`;
}
