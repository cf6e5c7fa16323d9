package installer

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// MaxManifestBytes bounds a static pod manifest read: kubeadm's is a few KiB.
const MaxManifestBytes = 1 << 20

// apiserverContainer is the container kubeadm names after the component (and its command's
// binary).
const apiserverContainer = "kube-apiserver"

// pod is the part of a v1 Pod read here.
type pod struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Containers []struct {
			Name    string   `json:"name"`
			Command []string `json:"command"`
			Args    []string `json:"args"`
			Env     []struct {
				Name      string          `json:"name"`
				Value     string          `json:"value"`
				ValueFrom json.RawMessage `json:"valueFrom"`
			} `json:"env"`
		} `json:"containers"`
	} `json:"spec"`
}

// ParseManifest reads a static pod manifest (a v1 Pod, as kubeadm writes
// /etc/kubernetes/manifests/kube-apiserver.yaml) and returns the flags its kube-apiserver
// container is started with. The source names file. The error says what is wrong, without
// naming the file (the caller does).
func ParseManifest(file string, doc []byte) (snapshot.StatedFlags, error) {
	var p pod
	if err := yaml.Unmarshal(doc, &p); err != nil {
		return snapshot.StatedFlags{}, fmt.Errorf("not a YAML Pod: %s", cleanErr(err))
	}
	if p.Kind != "Pod" || p.APIVersion != "v1" {
		return snapshot.StatedFlags{}, fmt.Errorf("apiVersion %q kind %q: want a v1 Pod (a static pod manifest)", p.APIVersion, p.Kind)
	}
	var names []string
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
		if c.Name != apiserverContainer && (len(c.Command) == 0 || path.Base(c.Command[0]) != apiserverContainer) {
			continue
		}
		args := append(append([]string(nil), c.Command...), c.Args...)
		if len(c.Command) > 0 && !strings.HasPrefix(c.Command[0], "-") {
			args = args[1:] // the binary
		}
		flags, err := mvp.CommandLineFlags(args)
		if err != nil {
			return snapshot.StatedFlags{}, fmt.Errorf("container %s: %w", c.Name, err)
		}
		stated := snapshot.StatedFlags{Source: snapshot.ManifestSource(file), Flags: flags}
		for _, e := range c.Env {
			if slices.Contains(mvp.StatedEnvNames, e.Name) {
				stated.Env = append(stated.Env, snapshot.EnvVar{Name: e.Name, Value: e.Value, ValueFrom: len(e.ValueFrom) > 0 && string(e.ValueFrom) != "null"})
			}
		}
		return stated, nil
	}
	return snapshot.StatedFlags{}, fmt.Errorf("no kube-apiserver container (containers: %s)", strings.Join(names, ", "))
}
