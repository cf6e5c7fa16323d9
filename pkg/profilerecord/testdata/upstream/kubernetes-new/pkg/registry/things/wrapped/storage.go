package wrapped

import "k8s.io/apiserver/pkg/registry/rest"

type Storage struct {
	rest.StandardStorage
}

func NewStorage(s rest.StandardStorage) *Storage {
	return &Storage{s}
}

func (s *Storage) NamespaceScoped() bool {
	return false
}
