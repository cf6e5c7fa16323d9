// Package profile holds the version profiles: what a kube-apiserver of one version serves by
// itself, recorded from real apiservers and built into mvpctl (profiles/*.json), or read from
// the user's profile files. It decodes a profile file, finds the profile of a version's minor
// and says which profiles are provisional (derived from published modules, not recorded).
package profile
