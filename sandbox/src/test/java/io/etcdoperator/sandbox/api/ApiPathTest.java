package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiPathTest {
  @Test
  void takesPathsApart() {
    assertThat(ApiPath.parse("/api/v1/namespaces/default/pods/etcd-0/log?container=etcd"))
        .isEqualTo(new ApiPath("", "v1", "default", "pods", "etcd-0", "log"));
    assertThat(ApiPath.parse("/apis/etcd.aenix.io/v1alpha1/namespaces/ns/etcdclusters/test/scale"))
        .isEqualTo(new ApiPath("etcd.aenix.io", "v1alpha1", "ns", "etcdclusters", "test", "scale"));
    assertThat(ApiPath.parse("/api/v1/namespaces/default"))
        .isEqualTo(new ApiPath("", "v1", null, "namespaces", "default", null));
    assertThat(ApiPath.parse("/apis/apps/v1/statefulsets"))
        .isEqualTo(new ApiPath("apps", "v1", null, "statefulsets", null, null));
    assertThat(ApiPath.parse("/version")).isNull();
    assertThat(new ApiPath("apps", "v1", "ns", "statefulsets", "s", "scale").objectPath())
        .isEqualTo("/apis/apps/v1/namespaces/ns/statefulsets/s");
  }
}
