package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** The part of object metadata a template may set: labels and annotations (name is ignored). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EmbeddedObjectMetadata {
  private String name;
  private Map<String, String> labels;
  private Map<String, String> annotations;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Map<String, String> getLabels() {
    return labels;
  }

  public void setLabels(Map<String, String> labels) {
    this.labels = labels;
  }

  public Map<String, String> getAnnotations() {
    return annotations;
  }

  public void setAnnotations(Map<String, String> annotations) {
    this.annotations = annotations;
  }
}
