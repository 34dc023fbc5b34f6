package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DiscoveryTest {
  static final ObjectMapper M = new ObjectMapper();

  static List<ResourceType> types() {
    List<ResourceType> all = new ArrayList<>(BuiltInTypes.ALL);
    all.addAll(CrdTypes.types(CrdTypes.etcdClusterCrd()));
    return all;
  }

  @Test
  void listsEtcdClustersWithSubresourcesAndShortNames() throws Exception {
    JsonNode list = M.readTree(new Discovery(M).resourceList(types(), "etcd.aenix.io", "v1alpha1"));
    assertThat(list.path("groupVersion").asText()).isEqualTo("etcd.aenix.io/v1alpha1");
    List<String> names = new ArrayList<>();
    list.path("resources").forEach(r -> names.add(r.path("name").asText()));
    assertThat(names).containsExactly("etcdclusters", "etcdclusters/status", "etcdclusters/scale");
    assertThat(list.path("resources").get(0).path("shortNames").get(0).asText()).isEqualTo("etcd");
    assertThat(list.path("resources").get(0).path("namespaced").asBoolean()).isTrue();
  }

  @Test
  void groupsAndCoreVersionsAreListed() throws Exception {
    JsonNode groups = M.readTree(new Discovery(M).groupList(types()));
    List<String> names = new ArrayList<>();
    groups.path("groups").forEach(g -> names.add(g.path("name").asText()));
    assertThat(names)
        .contains("apps", "policy", "etcd.aenix.io", "apiextensions.k8s.io")
        .doesNotContain("");
    assertThat(
            M.readTree(new Discovery(M).apiVersions("127.0.0.1:1"))
                .path("versions")
                .get(0)
                .asText())
        .isEqualTo("v1");
    assertThat(new Discovery(M).resourceList(types(), "nope", "v1")).isNull();
  }

  @Test
  void openApiDeclaresServerSideFieldValidationPerKind() throws Exception {
    JsonNode root = M.readTree(new OpenApi(M).root(types()));
    assertThat(root.path("paths").has("apis/etcd.aenix.io/v1alpha1")).isTrue();
    JsonNode doc = M.readTree(new OpenApi(M).groupVersion(types(), "apis/etcd.aenix.io/v1alpha1"));
    JsonNode patch =
        doc.path("paths")
            .path("/apis/etcd.aenix.io/v1alpha1/namespaces/{namespace}/etcdclusters/{name}")
            .path("patch");
    assertThat(patch.path("x-kubernetes-group-version-kind").path("kind").asText())
        .isEqualTo("EtcdCluster");
    assertThat(patch.path("parameters").toString()).contains("fieldValidation");
  }
}
