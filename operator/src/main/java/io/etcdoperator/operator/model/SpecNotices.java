package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What a valid spec asks for that the operator does not do, said to the user instead of silently
 * dropped: the Ready condition's message carries each notice, and the first reconcile of a
 * generation emits a Warning Event ({@code SpecIgnored}). Pure.
 *
 * <ul>
 *   <li>{@code spec.storage} with both {@code emptyDir} and {@code volumeClaimTemplate}: aenix uses
 *       the emptyDir "in place of any volumeClaimTemplate", and so does this operator.
 * </ul>
 */
public final class SpecNotices {
  private SpecNotices() {}

  public static List<String> of(EtcdClusterSpec spec) {
    List<String> notices = new ArrayList<>();
    if (spec != null
        && spec.getStorage() != null
        && spec.getStorage().getEmptyDir() != null
        && spec.getStorage().getVolumeClaimTemplate() != null) {
      notices.add(
          "spec.storage.volumeClaimTemplate is ignored: spec.storage.emptyDir is set and is used"
              + " in its place (member data is lost whenever a pod is deleted); remove one of them");
    }
    return notices;
  }
}
