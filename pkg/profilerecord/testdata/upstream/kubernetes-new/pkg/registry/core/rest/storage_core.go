package rest

import (
	api "k8s.io/kubernetes/pkg/apis/core"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod/storage"
)

func (p *legacyProvider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	storage := map[string]rest.Storage{}
	podStorage, err := podstore.NewStorage(restOptionsGetter)
	if err != nil {
		return genericapiserver.APIGroupInfo{}, err
	}
	if resource := "pods"; apiResourceConfigSource.ResourceEnabled(corev1.SchemeGroupVersion.WithResource(resource)) {
		storage[resource] = podStorage.Pod
		storage[resource+"/status"] = podStorage.Status
		storage[resource+"/binding"] = podStorage.Binding
	}
	if resource := "bindings"; apiResourceConfigSource.ResourceEnabled(corev1.SchemeGroupVersion.WithResource(resource)) {
		storage[resource] = podStorage.LegacyBinding
	}
	return apiGroupInfo, nil
}

func (p *legacyProvider) GroupName() string {
	return api.GroupName
}
