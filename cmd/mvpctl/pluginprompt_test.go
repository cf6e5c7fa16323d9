//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// devicePrompt is what a device-code sign-in (Azure's kubelogin, say) prints on stderr.
const devicePrompt = "To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD-1234 to authenticate."

// A token the plugin returns, a value of its exec environment, and a JWT it never returns:
// each is printed by the plugin on stderr and must never be shown.
const (
	plantedEnv = "planted-env-value-0f9e8d7c"
	plantedJWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQ"
)

// deviceCodePlugin prints the prompt and the planted secrets on stderr, (when wait) reads a
// line from its stdin as a sign-in waits for the user, then prints and returns pt.Token.
func deviceCodePlugin(t *testing.T, wait bool) string {
	body := "if [ -t 0 ]; then echo 'stdin: a terminal' >&2; else echo 'stdin: not a terminal' >&2; fi\n" +
		"echo '" + devicePrompt + "' >&2\n" +
		"echo \"debug: env $PLUGIN_SETTING\" >&2\n" +
		"echo 'debug: refresh " + plantedJWT + "' >&2\n"
	if wait {
		body += "read answer\necho \"signed in: $answer\" >&2\n"
	}
	// The token exists once the sign-in is done: the plugin prints it, then returns it.
	body += "echo 'debug: returning " + pt.Token + "' >&2\n"
	return pluginScript(t, t.TempDir(), "plugin", body+"echo '"+execCredential(pt.Token)+"'\n")
}

// assertNoPlanted fails when text shows a planted secret.
func assertNoPlanted(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range []string{pt.Token, plantedEnv, plantedJWT} {
		if strings.Contains(text, s) {
			t.Errorf("%s shows %q", where, s)
		}
	}
}

// TestPluginPromptOffTerminal: in CI (stdin not a terminal) a device-code plugin's prompt is
// shown on stderr, its secrets redacted: the token it returns, its exec environment's value,
// a JWT; they are in neither stdout, stderr nor the snapshot written.
func TestPluginPromptOffTerminal(t *testing.T) {
	c := pt.Start(t, &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)})
	kc := pluginKubeconfig(t, t.TempDir(), c.Servers[0].URL(), c.PKI.CAPEM, deviceCodePlugin(t, false), "IfAvailable", map[string]string{"PLUGIN_SETTING": plantedEnv})
	dir := t.TempDir()
	r := runProcess(t, processRun{args: []string{"snapshot", "--kubeconfig", kc, "-f", "snap.yaml"}, dir: dir})
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"stdin: not a terminal\n", devicePrompt + "\n", "debug: env [REDACTED]\n", "debug: refresh [REDACTED]\n", "debug: returning [REDACTED]\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, r.stderr)
		}
	}
	snap, err := os.ReadFile(filepath.Join(dir, "snap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	assertNoPlanted(t, "stdout", r.stdout)
	assertNoPlanted(t, "stderr", r.stderr)
	assertNoPlanted(t, "the snapshot", string(snap))
}

// TestPluginPromptOnTerminal: with stdin a terminal (a pty) and interactiveMode IfAvailable,
// client-go runs the plugin interactively; its prompt reaches stderr while it waits for the
// user — the test answers only once it has seen the prompt — and its secrets never do.
func TestPluginPromptOnTerminal(t *testing.T) {
	c := pt.Start(t, &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)})
	kc := pluginKubeconfig(t, t.TempDir(), c.Servers[0].URL(), c.PKI.CAPEM, deviceCodePlugin(t, true), "IfAvailable", map[string]string{"PLUGIN_SETTING": plantedEnv})
	master, replica := openPTY(t)
	cmd := exec.Command(binary(t), "routes", "--kubeconfig", kc)
	cmd.Stdin = replica
	var stdout strings.Builder
	cmd.Stdout = &stdout
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errW.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var stderr []string
	answered := false
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			stderr = append(stderr, l)
			if l == devicePrompt && !answered {
				fmt.Fprintln(master, "yes")
				answered = true
			}
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("no prompt shown while the plugin waited; stderr so far %q", stderr)
		}
	}
	err = cmd.Wait()
	all := strings.Join(stderr, "\n")
	if err != nil || !answered || !strings.Contains(all, "stdin: a terminal") || !strings.Contains(all, "signed in: yes") {
		t.Errorf("exit %v, answered %v, stderr %q", err, answered, all)
	}
	assertNoPlanted(t, "stdout", stdout.String())
	assertNoPlanted(t, "stderr", all)
}

// openPTY opens a pseudo-terminal pair: what is written to master is read from replica.
func openPTY(t *testing.T) (master, replica *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return m, r
}
