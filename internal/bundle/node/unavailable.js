// unavailable makes the functions of a Node module fount cannot give a
// component (processes, threads, UDP, contexts, the inspector): the
// module loads, as libraries import them at load, and a call throws an
// Error with code ENOSYS that says why.
export function unavailable(module, why) {
  return (name) =>
    function () {
      const err = new Error(module + "." + name + ": " + why);
      err.code = "ENOSYS";
      throw err;
    };
}

// exportOf is what a built-in gives an ES module importing name: the
// module's own export, else its default object's property, else, where
// Node has the name and fount has not, a function that throws (ENOSYS)
// when called or constructed. Only named imports see such a function:
// require() and the default object keep lacking the name, so that code
// testing for it finds it missing.
export function exportOf(impl, module, name) {
  if (impl[name] !== undefined) return impl[name];
  const d = impl.default;
  if (d !== null && d !== undefined && d[name] !== undefined) return d[name];
  return unavailable(module, "not available in fount")(name);
}
