package process

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// adoptOrphans makes mvpctl the reaper of its descendants (PR_SET_CHILD_SUBREAPER): a process
// a credential plugin starts in the background and leaves behind is re-parented to mvpctl, not
// to init, so endChildren still finds it. Called once, before any child starts.
func adoptOrphans() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// endChildren ends every live descendant of the process — a credential plugin client-go still
// waits for, what it started, what was re-parented to mvpctl — and reaps them, within about
// grace+killWait. They are found through /proc's parent links (never the process group: in a
// CI script mvpctl shares its group with the script). SIGTERM first; whatever is still alive
// after grace gets SIGKILL, which a plugin cannot ignore. A child started while this runs is
// found by the next round.
func endChildren(grace, killWait time.Duration) {
	self := os.Getpid()
	deadline := time.Now().Add(grace)
	sig := syscall.SIGTERM
	for round := 0; ; round++ {
		alive := liveDescendants(self)
		reapChildren()
		if len(alive) == 0 {
			return
		}
		if sig == syscall.SIGTERM && time.Now().After(deadline) {
			sig, deadline = syscall.SIGKILL, time.Now().Add(killWait)
		} else if sig == syscall.SIGKILL && time.Now().After(deadline) {
			return // in uninterruptible sleep (D): it ends when the kernel lets it
		}
		for _, pid := range alive {
			_ = syscall.Kill(pid, sig)
		}
		time.Sleep(time.Duration(min(round+1, 10)) * time.Millisecond)
	}
}

// reapChildren collects the exit status of every child that has ended (a killed plugin, an
// adopted orphan), so that none is left a zombie.
func reapChildren() {
	for {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// liveDescendants are the processes below pid that have not ended (zombies excluded), read
// from /proc/PID/task/TID/children; on a kernel without those files, from every process's
// parent in /proc/PID/stat.
func liveDescendants(pid int) []int {
	children := childrenOf
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(syscall.Gettid()) + "/children"); err != nil {
		children = parentScan()
	}
	var out []int
	queue := children(pid)
	for len(queue) > 0 && len(out) < 1<<14 {
		p := queue[0]
		queue = queue[1:]
		if Alive(p) {
			out = append(out, p)
		}
		queue = append(queue, children(p)...)
	}
	return out
}

// childrenOf lists pid's children from the children file of each of its threads (a child is
// listed under the thread that started it, or that adopted it).
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile(dir + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// parentScan reads every process's parent once and returns the children lookup built from it.
func parentScan() func(int) []int {
	byParent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if _, ppid := procStat(pid); ppid > 0 {
				byParent[ppid] = append(byParent[ppid], pid)
			}
		}
	}
	return func(pid int) []int { return byParent[pid] }
}

// procStat is the state letter and the parent of pid from /proc/PID/stat (0, 0 when it is
// gone). The command name, in parentheses, may hold spaces and parentheses itself.
func procStat(pid int) (state byte, ppid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid
}

// Alive reports whether pid is a process that has not ended (a zombie has).
func Alive(pid int) bool {
	state, _ := procStat(pid)
	return state != 0 && state != 'Z' && state != 'X'
}

// watchChildOutput stops a child process that writes more than limit bytes (wchar of
// /proc/PID/io: its stdout and stderr): client-go reads a credential plugin's whole stdout
// into memory, so a plugin writing without end (500 MB once cost 1 GB, and was reported as
// not finishing) would take the process's memory with it. Checked every tick while a request
// that runs a plugin is in flight (apiclient.PluginMayRun), and every tick/10 while a process
// has written more than limit/16 (far more than an ExecCredential): what the reader keeps
// past the limit is what is written between two checks. The whole tree of the child gets
// SIGKILL, the child first: spare one writer of a pipeline and the plugin may end with
// status 0 and what was written be decoded as an ExecCredential. stopped hears why.
func watchChildOutput(limit int64, tick time.Duration, mayRun func() bool, stopped func(reason string), done <-chan struct{}) {
	self := os.Getpid()
	timer := time.NewTimer(tick)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case <-timer.C:
		}
		wait := tick
		if mayRun() {
			for _, tree := range childTrees(self) {
				most := int64(0)
				for _, pid := range tree {
					most = max(most, written(pid))
				}
				if most > limit/16 {
					wait = tick / 10
				}
				if most <= limit {
					continue
				}
				for _, pid := range tree {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				stopped(fmt.Sprintf("it wrote more than %d MiB (an ExecCredential is a few KiB)", limit>>20))
			}
		}
		timer.Reset(wait)
	}
}

// childTrees lists each live child of pid with its live descendants, the child first.
func childTrees(pid int) [][]int {
	var trees [][]int
	for _, c := range liveDescendants(pid) {
		if _, ppid := procStat(c); ppid == pid {
			trees = append(trees, append([]int{c}, liveDescendants(c)...))
		}
	}
	return trees
}

// written is the wchar of /proc/PID/io: the bytes pid wrote (0 when unknown).
func written(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
