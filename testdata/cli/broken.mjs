export default {
  name: "broken", version: "1", run() { return ) }
};
