export type Shouted = { loud: string; length: number };

export function shout(word: string): Shouted {
  return { loud: word.toUpperCase() + "!", length: word.length };
}
