// Package jsonbench measures candidate readers of the audit-log fields replay needs, and gzip
// decoders, on the same generated log, in one invocation:
//
//	cd test/tools/jsonbench && go test -bench . -benchtime 3x
//
// It is a module of its own so that the candidates' dependencies stay out of mvpctl's go.mod.
package jsonbench
