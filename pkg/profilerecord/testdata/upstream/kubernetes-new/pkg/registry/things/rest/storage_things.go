package rest

import (
	thingsv1 "k8s.io/api/things/v1"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/apis/things"
	"k8s.io/kubernetes/pkg/features"
	gizmostore "k8s.io/kubernetes/pkg/registry/things/gizmo/storage"
	"k8s.io/kubernetes/pkg/registry/things/review"
	widgetstore "k8s.io/kubernetes/pkg/registry/things/widget/storage"
	"k8s.io/kubernetes/pkg/registry/things/wrapped"
)

type RESTStorageProvider struct{}

func (p RESTStorageProvider) v1Storage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	storage := map[string]rest.Storage{}
	if utilfeature.DefaultFeatureGate.Enabled(features.KubeThing) {
		storage["reviews"] = review.NewREST()
	} else {
		storage["oldreviews"] = review.NewREST()
	}
	if resource := "gizmos"; apiResourceConfigSource.ResourceEnabled(thingsv1.SchemeGroupVersion.WithResource(resource)) {
		if utilfeature.DefaultFeatureGate.Enabled(genericfeatures.NewThing) {
			gizmoStorage, gizmoStatusStorage, err := gizmostore.NewREST(restOptionsGetter)
			if err != nil {
				return nil, err
			}
			storage[resource] = gizmoStorage
			storage[resource+"/status"] = gizmoStatusStorage
		}
	}
	return storage, nil
}

func (p RESTStorageProvider) v1beta1Storage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	storage := map[string]rest.Storage{}
	if resource := "widgets"; apiResourceConfigSource.ResourceEnabled(thingsv1.SchemeGroupVersion.WithResource(resource)) {
		widgetStorage, err := widgetstore.NewREST(restOptionsGetter)
		if err != nil {
			return nil, err
		}
		storage[resource] = wrapped.NewStorage(widgetStorage)
	}
	return storage, nil
}

func (p RESTStorageProvider) GroupName() string {
	return things.GroupName
}
