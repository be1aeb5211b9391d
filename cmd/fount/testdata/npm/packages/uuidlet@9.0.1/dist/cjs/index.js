throw new Error("uuidlet: the CommonJS build is not the one an ES module import should load");
