package io.etcdoperator.sandbox.api;

/** Finds the main process of a pod's first container, for messages that point at it. */
@FunctionalInterface
public interface PodProcesses {
  /** The pid, or -1. */
  long pid(String namespace, String pod);
}
