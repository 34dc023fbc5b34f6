package io.etcdoperator.sandbox.api.admission;

import io.fabric8.mockwebserver.http.MockResponse;

/**
 * One step of the {@link AdmissionChain}: it may change the object, add to its field errors, or
 * refuse the write outright.
 */
@FunctionalInterface
public interface AdmissionPlugin {
  /** The refusal, or null to let the write go on to the next plugin. */
  MockResponse admit(AdmissionRequest request) throws Exception;
}
