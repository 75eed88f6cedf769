// Command gojq does nothing but link gojq: its start-up cost over
// bench/startup/empty is what gojq's package initialisation costs.
package main

import _ "github.com/itchyny/gojq"

func main() {}
