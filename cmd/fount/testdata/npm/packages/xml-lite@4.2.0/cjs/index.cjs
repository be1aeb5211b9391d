throw new Error("xml-lite: the CommonJS build is not the one an ES module import should load");
