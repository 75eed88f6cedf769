// Command empty does nothing: the start-up floor of a Go program.
package main

func main() {}
