//go:build !amd64

package auditlog

func haveMasks() bool { return false }

func masks64(p *byte, chunks int, quotes, backslashes *uint64) (outside bool) {
	panic("auditlog: masks64 without AVX2")
}
