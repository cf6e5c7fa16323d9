package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// guardStderr keeps what others write to the process's stderr from reaching the user as it
// is. A kubeconfig's exec credential plugin inherits os.Stderr from client-go and may print
// its environment or a token there; klog prints client-go's warnings there too. mvpctl's own
// messages go to out (the real stderr), and at the end one line says how many lines others
// wrote, not what they said. The returned function restores os.Stderr and prints that line.
func guardStderr(out io.Writer) (stop func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	real := os.Stderr
	os.Stderr = w
	done := make(chan int)
	go func() {
		n := 0
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20) // 4 KB at first, allocated when another writes to stderr
		for sc.Scan() {
			n++
		}
		io.Copy(io.Discard, r) // an overlong line: drain the rest, counted as one
		done <- n
	}()
	return func() {
		os.Stderr = real
		w.Close()
		if n := <-done; n > 0 {
			fmt.Fprintf(out, "note: %d line(s) written to stderr by a credential plugin or a library were not shown (they can hold secrets); run the kubeconfig's exec plugin by hand to see its output\n", n)
		}
		r.Close()
	}
}
