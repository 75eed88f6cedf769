#!/usr/bin/env node
"use strict";
require("../lib/launch.js").run("statusls", process.argv.slice(2));
