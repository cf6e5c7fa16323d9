package controlplane

import (
	apiv1 "k8s.io/api/core/v1"
	thingsv1 "k8s.io/api/things/v1"
	thingsv1beta1 "k8s.io/api/things/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corerest "k8s.io/kubernetes/pkg/registry/core/rest"
	thingsrest "k8s.io/kubernetes/pkg/registry/things/rest"
)

func (c CompletedConfig) StorageProviders() ([]RESTStorageProvider, error) {
	legacy, err := corerest.New(corerest.Config{})
	providers := []RESTStorageProvider{legacy, thingsrest.RESTStorageProvider{}}
	return providers, err
}

var (
	stableAPIGroupVersionsEnabledByDefault = []schema.GroupVersion{
		apiv1.SchemeGroupVersion,
		thingsv1.SchemeGroupVersion,
	}
	betaAPIGroupVersionsDisabledByDefault = []schema.GroupVersion{
		thingsv1beta1.SchemeGroupVersion,
		thingsv1beta1.SchemeGroupVersion,
	}
)
