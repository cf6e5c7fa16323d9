// Package installer reads what an installer states about how each kube-apiserver is started:
// kubeadm's kube-system/kubeadm-config ConfigMap (its ClusterConfiguration, kubeadm.k8s.io
// v1beta3 or v1beta4), a node's static pod manifest (/etc/kubernetes/manifests/
// kube-apiserver.yaml), and Cluster API's KubeadmControlPlane
// (spec.kubeadmConfigSpec.clusterConfiguration, v1beta1 or v1beta2). It keeps the flags that
// decide the peer proxy (mvp.StatedFlagNames), as snapshot.StatedFlags. It does no I/O:
// callers hand it the bytes.
package installer
