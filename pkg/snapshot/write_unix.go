//go:build unix

package snapshot

import (
	"fmt"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner and group of the file it replaces (info), or refuses: an
// owner mvpctl cannot keep is not changed behind the user's back.
func keepOwner(tmp *os.File, info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	mine, err := tmp.Stat()
	if err != nil {
		return err
	}
	if now, ok := mine.Sys().(*syscall.Stat_t); ok && now.Uid == st.Uid && now.Gid == st.Gid {
		return nil
	}
	if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
		return fmt.Errorf("owned by uid %d gid %d, which mvpctl cannot keep when it replaces the file (%v): write it as that user, or remove it first", st.Uid, st.Gid, unwrapPathError(err))
	}
	return nil
}
