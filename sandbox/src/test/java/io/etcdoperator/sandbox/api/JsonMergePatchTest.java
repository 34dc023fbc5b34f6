package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** RFC 7386, as a real API server applies a merge patch: objects merge, lists are replaced. */
class JsonMergePatchTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void listsAreReplacedObjectsMergedAndNullRemoves() throws Exception {
    var target =
        JSON.readTree(
            "{\"spec\":{\"replicas\":3,\"podTemplate\":{\"spec\":{\"containers\":"
                + "[{\"name\":\"etcd\",\"image\":\"a\"}]}}},\"metadata\":{\"labels\":{\"x\":\"1\"}}}");
    var patch =
        JSON.readTree(
            "{\"spec\":{\"podTemplate\":{\"spec\":{\"containers\":"
                + "[{\"name\":\"etcd\",\"image\":\"b\"}]}}},\"metadata\":{\"labels\":{\"x\":null,\"y\":\"2\"}}}");
    assertThat(JsonMergePatch.apply(target, patch))
        .isEqualTo(
            JSON.readTree(
                "{\"spec\":{\"replicas\":3,\"podTemplate\":{\"spec\":{\"containers\":"
                    + "[{\"name\":\"etcd\",\"image\":\"b\"}]}}},\"metadata\":{\"labels\":{\"y\":\"2\"}}}"));
  }
}
