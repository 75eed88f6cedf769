#!/usr/bin/env node
"use strict";
require("../lib/launch.js").run("statuspub", process.argv.slice(2));
