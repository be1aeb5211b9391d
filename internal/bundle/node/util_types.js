// node:util/types for fount: util.types.
import util from "util";
export default util.types;
