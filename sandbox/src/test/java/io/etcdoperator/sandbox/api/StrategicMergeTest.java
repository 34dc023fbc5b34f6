package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StrategicMergeTest {
  static final ObjectMapper M = new ObjectMapper();

  static JsonNode json(String s) throws Exception {
    return M.readTree(s.replace('\'', '"'));
  }

  @Test
  void listsOfNamedObjectsMergeByName() throws Exception {
    JsonNode target =
        json(
            "{'spec':{'containers':[{'name':'a','image':'x','args':['1']},{'name':'b','image':'y'}]}}");
    JsonNode patch =
        json(
            "{'spec':{'containers':[{'name':'b','image':'z'}],'$setElementOrder/containers':[{'name':'a'},{'name':'b'}]}}");
    assertThat(StrategicMerge.apply(target, patch))
        .isEqualTo(
            json(
                "{'spec':{'containers':[{'name':'a','image':'x','args':['1']},{'name':'b','image':'z'}]}}"));
  }

  @Test
  void deleteDirectiveRemovesAndNullRemovesFields() throws Exception {
    JsonNode target =
        json("{'metadata':{'labels':{'a':'1','b':'2'}},'list':[{'name':'a'},{'name':'b'}]}");
    JsonNode patch =
        json("{'metadata':{'labels':{'a':null}},'list':[{'name':'a','$patch':'delete'}]}");
    assertThat(StrategicMerge.apply(target, patch))
        .isEqualTo(json("{'metadata':{'labels':{'b':'2'}},'list':[{'name':'b'}]}"));
  }

  @Test
  void listsWithoutAMergeKeyAreReplaced() throws Exception {
    JsonNode target = json("{'args':['1','2']}");
    assertThat(StrategicMerge.apply(target, json("{'args':['3']}")))
        .isEqualTo(json("{'args':['3']}"));
  }
}
