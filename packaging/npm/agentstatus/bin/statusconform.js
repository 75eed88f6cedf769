#!/usr/bin/env node
"use strict";
require("../lib/launch.js").run("statusconform", process.argv.slice(2));
