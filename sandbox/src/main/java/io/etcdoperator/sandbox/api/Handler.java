package io.etcdoperator.sandbox.api;

import io.fabric8.mockwebserver.http.MockResponse;

/** Answers one kind of request, once authentication and authorization let it through. */
@FunctionalInterface
public interface Handler {
  MockResponse handle(ApiRequest request) throws Exception;
}
