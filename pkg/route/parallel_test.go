package route

import (
	"reflect"
	"runtime"
	"testing"
)

// TestTableSameOnOneCPUAndMany: the table built in parallel chunks equals the one built on a
// single CPU, row for row (run with -race, it also shows the router is read-only while deciding).
func TestTableSameOnOneCPUAndMany(t *testing.T) {
	r := NewRouter(scaleSnapshot(3000))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := r.Table(false)
	runtime.GOMAXPROCS(4)
	many := r.Table(false)
	if len(one.Rows) != 1500 {
		t.Fatalf("%d rows, want 1500", len(one.Rows))
	}
	if !reflect.DeepEqual(one, many) {
		t.Fatal("the parallel table differs from the sequential one")
	}
}
