// Command hello is the baseline of the start-up measurements (docs/performance.md, make perf):
// the smallest Go program that prints a line.
package main

import "fmt"

func main() { fmt.Println("hello") }
