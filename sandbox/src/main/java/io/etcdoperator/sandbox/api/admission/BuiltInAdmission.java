package io.etcdoperator.sandbox.api.admission;

import io.fabric8.mockwebserver.http.MockResponse;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a real API server's registry does to a built-in object (not to its subresources) before
 * storing it, as three plugins of the {@link AdmissionChain}: the defaults ({@link
 * CoreValidation#mutate}, a new Service's cluster IP among them), the validation ({@link
 * CoreValidation#validate}), and a CRD's own validation ({@link CrdValidation}), whose errors stand
 * in for the core ones.
 */
final class BuiltInAdmission {
  private final AtomicInteger clusterIps = new AtomicInteger(10);

  MockResponse defaults(AdmissionRequest a) throws Exception {
    if (a.builtInObject()) {
      CoreValidation.mutate(
          a.api().group(), a.api().plural(), a.object(), a.old(), this::nextClusterIp);
    }
    return null;
  }

  static MockResponse validate(AdmissionRequest a) throws Exception {
    if (a.builtInObject()) {
      a.errors(CoreValidation.validate(a.api().group(), a.api().plural(), a.object(), a.old()));
    }
    return null;
  }

  static MockResponse validateCrd(AdmissionRequest a) throws Exception {
    if (a.builtInObject() && a.api().plural().equals("customresourcedefinitions")) {
      a.errors(CrdValidation.validate(a.object()));
    }
    return null;
  }

  /** A cluster IP for a new Service (from 10.96.0.0/16; nothing is ever sent there). */
  private String nextClusterIp() {
    int n = clusterIps.incrementAndGet();
    return "10.96." + ((n >> 8) & 0xff) + "." + (n & 0xff);
  }
}
