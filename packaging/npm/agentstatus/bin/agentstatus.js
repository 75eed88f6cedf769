#!/usr/bin/env node
"use strict";
// npx agentstatus statusls demo
require("../lib/launch.js").main(process.argv.slice(2));
