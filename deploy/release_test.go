package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The places that name the tree's version reference (docs/install.md#making-a-release):
// the action's `uses:`, and the image, beside the Makefile's IMAGE_TAG and the base's newTag.
var (
	usesRef  = regexp.MustCompile(`uses: mvpctl/mvpctl@([^\s"'` + "`" + `,)]+)`)
	imageRef = regexp.MustCompile(`ghcr\.io/mvpctl/mvpctl:([^\s"'` + "`" + `,)]+)`)
)

// placeholder is how the docs write "a release tag" without naming one.
const placeholder = "vX.Y.Z"

// versionFiles are the repository's files that may name the version reference.
func versionFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, "../README.md", "../action.yml", "../Makefile", "../Dockerfile")
}

// TestVersionReference: every `uses: mvpctl/mvpctl@REF` and every ghcr.io/mvpctl/mvpctl:REF
// of the docs, action.yml, the Makefile and the Dockerfile names the Makefile's IMAGE_TAG,
// which the base's image tag is too (TestKustomizeBase); action.yml and docs/ci.md name it.
func TestVersionReference(t *testing.T) {
	ref := makefileVar(t, "IMAGE_TAG")
	found := map[string]int{}
	for _, f := range versionFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{usesRef, imageRef} {
			for _, m := range re.FindAllStringSubmatch(string(data), -1) {
				if m[1] != ref && m[1] != placeholder {
					t.Errorf("%s: %s, but the version reference (Makefile IMAGE_TAG) is %s", f, m[0], ref)
				}
				found[f]++
			}
		}
	}
	for _, f := range []string{"../action.yml", "../docs/ci.md", "../docs/install.md", "../docs/exporter.md"} {
		if found[f] == 0 {
			t.Errorf("%s names no mvpctl/mvpctl@%s or ghcr.io/mvpctl/mvpctl:%s", f, ref, ref)
		}
	}
	if got := usesRef.FindStringSubmatch("  uses: mvpctl/mvpctl@v0.3.0   # x"); got == nil || got[1] != "v0.3.0" {
		t.Errorf("the pattern reads %q from a uses: line", got)
	}
}

// TestVersionReferenceResolves: the version reference exists in this repository — the
// branch main, or a release tag vX.Y.Z — so that `uses: mvpctl/mvpctl@REF` and the image tag
// name something a user can get. A tag that does not exist does not resolve.
func TestVersionReferenceResolves(t *testing.T) {
	if out, err := exec.Command("git", "-C", "..", "rev-parse", "--git-dir").CombinedOutput(); err != nil {
		t.Skipf("not a git repository (a source archive?), no tag or branch to resolve in: %v %s", err, out)
	}
	ref := makefileVar(t, "IMAGE_TAG")
	if ok, tried := resolves(ref); !ok {
		t.Errorf("the version reference %q resolves to no commit of this repository (tried %s): "+
			"name main, or a vX.Y.Z tag that exists (git tag, docs/install.md#making-a-release)", ref, strings.Join(tried, ", "))
	}
	if ok, _ := resolves("v999.0.0"); ok {
		t.Error("v999.0.0 resolves: the check cannot fail")
	}
}

// resolves reports whether ref is the branch main (local, or as fetched from origin) or a
// release tag of the repository, and the git refs it tried.
func resolves(ref string) (bool, []string) {
	var candidates []string
	switch {
	case ref == "main":
		candidates = []string{"refs/heads/main", "refs/remotes/origin/main"}
	case regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(ref):
		candidates = []string{"refs/tags/" + ref}
	}
	for _, c := range candidates {
		if exec.Command("git", "-C", "..", "rev-parse", "--verify", "--quiet", c+"^{commit}").Run() == nil {
			return true, candidates
		}
	}
	return false, candidates
}

// TestPullRequestCommentStep: docs/ci.md's workflow posts the action's report as a sticky
// pull-request comment, with the one permission that needs, even when preflight failed the step.
func TestPullRequestCommentStep(t *testing.T) {
	type step struct {
		Name, ID, Uses, If string
		With               map[string]string
	}
	var wf struct {
		Jobs map[string]struct {
			Permissions map[string]string
			Steps       []step
		}
	}
	block := markdownBlock(t, "../docs/ci.md", "yaml", "sticky-pull-request-comment")
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil || len(wf.Jobs) != 1 {
		t.Fatalf("docs/ci.md's workflow: %v (%d jobs)", err, len(wf.Jobs))
	}
	for name, job := range wf.Jobs {
		if job.Permissions["pull-requests"] != "write" || job.Permissions["contents"] != "read" {
			t.Errorf("job %s: permissions %v, want pull-requests: write and contents: read", name, job.Permissions)
		}
		var preflight, comment *step
		for i, s := range job.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "mvpctl/mvpctl@"):
				preflight = &job.Steps[i]
			case strings.HasPrefix(s.Uses, "marocchino/sticky-pull-request-comment@"):
				comment = &job.Steps[i]
			}
		}
		if preflight == nil || comment == nil || preflight.ID == "" {
			t.Fatalf("job %s: want a step with an id using mvpctl/mvpctl and a comment step", name)
		}
		if want := "${{ steps." + preflight.ID + ".outputs.report }}"; comment.With["path"] != want || comment.With["header"] == "" {
			t.Errorf("comment step with %v: want path %s and a header (the comment it edits)", comment.With, want)
		}
		if !strings.Contains(comment.If, "always()") {
			t.Errorf("comment step if %q: without always() no comment when preflight fails the step", comment.If)
		}
	}
}

// markdownBlock is the first fenced block of lang in file that contains want.
func markdownBlock(t *testing.T, file, lang, want string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], want) {
			return m[1]
		}
	}
	t.Fatalf("%s: no ```%s block with %q", file, lang, want)
	return ""
}
