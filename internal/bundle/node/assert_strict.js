// node:assert/strict for fount.
import assert from "assert";
export default assert.strict;
