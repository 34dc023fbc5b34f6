package io.etcdoperator.operator.act;

import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hash of a desired object, kept on the live object in {@link Names#DESIRED_HASH_ANNOTATION}.
 * Comparing hashes of what the operator wanted, rather than whole objects, keeps a real API
 * server's defaulted fields from looking like drift (the trap of an ever-updating StatefulSet).
 */
final class DesiredHash {
  private DesiredHash() {}

  static String of(HasMetadata desired) {
    Map<String, String> annotations = desired.getMetadata().getAnnotations();
    String saved = annotations == null ? null : annotations.remove(Names.DESIRED_HASH_ANNOTATION);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] digest = sha.digest(Serialization.asJson(desired).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    } finally {
      if (saved != null) {
        annotations.put(Names.DESIRED_HASH_ANNOTATION, saved);
      }
    }
  }

  /** Puts {@code hash}, the object's own ({@link #of}), on it. */
  static void put(HasMetadata desired, String hash) {
    Map<String, String> annotations =
        desired.getMetadata().getAnnotations() == null
            ? new LinkedHashMap<>()
            : new LinkedHashMap<>(desired.getMetadata().getAnnotations());
    annotations.put(Names.DESIRED_HASH_ANNOTATION, hash);
    desired.getMetadata().setAnnotations(annotations);
  }

  static String on(HasMetadata live) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Names.DESIRED_HASH_ANNOTATION);
  }
}
