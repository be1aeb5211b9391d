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
