package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits core/v1 Events on an EtcdCluster, so that {@code kubectl describe} tells its story. An
 * Event that cannot be written is logged, never fatal: Events are a report, not the state.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
  private static final String COMPONENT = "etcd-operator";

  private final KubernetesClient client;
  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();

  public EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Tells one Event of a status's story. */
  public void record(EtcdCluster cluster, Transitions.Notice notice) {
    emit(cluster, notice.warning() ? "Warning" : "Normal", notice.reason(), notice.message());
  }

  private void emit(EtcdCluster cluster, String type, String reason, String message) {
    if ("Warning".equals(type)) {
      LOG.warn("{}: {}", reason, message);
    } else {
      LOG.info("{}: {}", reason, message);
    }
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    var meta = cluster.getMetadata();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName(
                meta.getName()
                    + "."
                    + Long.toHexString(clock.millis())
                    + Long.toHexString(sequence.incrementAndGet()))
            .withNamespace(meta.getNamespace())
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(cluster.getApiVersion())
                    .withKind(cluster.getKind())
                    .withName(meta.getName())
                    .withNamespace(meta.getNamespace())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType(type)
            .withReason(reason)
            .withMessage(message.length() > 1000 ? message.substring(0, 1000) : message)
            .withNewSource(COMPONENT, null)
            .withReportingComponent(COMPONENT)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .build();
    try {
      client.v1().events().inNamespace(meta.getNamespace()).resource(event).create();
    } catch (KubernetesClientException e) {
      LOG.warn("Could not record Event {} ({}): {}", reason, message, e.getMessage());
    }
  }
}
