package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AuthDisableRequest;
import io.etcd.jetcd.api.AuthEnableRequest;
import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.AuthRoleAddRequest;
import io.etcd.jetcd.api.AuthUserAddRequest;
import io.etcd.jetcd.api.AuthUserGrantRoleRequest;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * etcd's authentication, as the operator runs it: certificate-based (the CN of the client
 * certificate is the user), so users have no password.
 *
 * <p>Turning it on: the role {@code root}, the user {@code root} without password ({@code
 * UserAddOptions.no_password}, etcd 3.5: such a user can only authenticate by certificate), the
 * role granted, the same for the operator's own user when its CN is not root, then {@code
 * AuthEnable} (which requires the root user with the root role). Each step is idempotent: what
 * exists already is left as it is, so a step interrupted halfway is simply done again. Turning it
 * off: {@code AuthDisable}; users and roles stay, ready for the next time.
 *
 * <p>Two messages the jetcd protos (0.8.5) lack are written by hand: {@code AuthStatus} (etcd 3.5:
 * whether auth is on) and the {@code options} field of {@code AuthUserAddRequest} (kept as an
 * unknown field, which protobuf writes out as it is).
 */
final class EtcdAuth {
  static final String ROOT = "root";

  private static final MethodDescriptor<byte[], byte[]> AUTH_STATUS =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(
              MethodDescriptor.generateFullMethodName("etcdserverpb.Auth", "AuthStatus"))
          .setRequestMarshaller(new Bytes())
          .setResponseMarshaller(new Bytes())
          .build();

  private final EtcdCalls calls;

  EtcdAuth(EtcdCalls calls) {
    this.calls = calls;
  }

  /** Whether auth is on (etcd 3.5's AuthStatus). */
  boolean enabled(String cluster, String url, Deadline deadline) {
    byte[] response =
        EtcdCalls.await(
            calls.call(cluster, url, AUTH_STATUS, new byte[0], deadline), url, deadline);
    return parseEnabled(response);
  }

  /** AuthStatusResponse: header = 1, enabled = 2 (bool), authRevision = 3. */
  static boolean parseEnabled(byte[] message) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(message);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag == (2 << 3)) {
          return in.readBool();
        }
        in.skipField(tag);
      }
      return false;
    } catch (IOException e) {
      throw new EtcdUnexpectedException("unreadable AuthStatus response", e);
    }
  }

  /** Root role and user, {@code user} as root too, then auth on. */
  void enable(String cluster, String url, String user, Supplier<Deadline> deadlines) {
    Deadline deadline = deadlines.get();
    ignoringExisting(
        () ->
            EtcdCalls.await(
                calls.call(
                    cluster,
                    url,
                    AuthGrpc.getRoleAddMethod(),
                    AuthRoleAddRequest.newBuilder().setName(ROOT).build(),
                    deadline),
                url,
                deadline));
    Set<String> users = new LinkedHashSet<>(List.of(ROOT, user));
    for (String u : users) {
      Deadline add = deadlines.get();
      ignoringExisting(
          () ->
              EtcdCalls.await(
                  calls.call(cluster, url, AuthGrpc.getUserAddMethod(), noPassword(u), add),
                  url,
                  add));
      Deadline grant = deadlines.get();
      ignoringExisting(
          () ->
              EtcdCalls.await(
                  calls.call(
                      cluster,
                      url,
                      AuthGrpc.getUserGrantRoleMethod(),
                      AuthUserGrantRoleRequest.newBuilder().setUser(u).setRole(ROOT).build(),
                      grant),
                  url,
                  grant));
    }
    Deadline enable = deadlines.get();
    EtcdCalls.await(
        calls.call(
            cluster,
            url,
            AuthGrpc.getAuthEnableMethod(),
            AuthEnableRequest.getDefaultInstance(),
            enable),
        url,
        enable);
  }

  void disable(String cluster, String url, Deadline deadline) {
    EtcdCalls.await(
        calls.call(
            cluster,
            url,
            AuthGrpc.getAuthDisableMethod(),
            AuthDisableRequest.getDefaultInstance(),
            deadline),
        url,
        deadline);
  }

  /** {@code AuthUserAddRequest{name, options: {no_password: true}}}. */
  static AuthUserAddRequest noPassword(String user) {
    byte[] options = new byte[] {0x08, 0x01}; // UserAddOptions.no_password (1) = true
    return AuthUserAddRequest.newBuilder()
        .setName(user)
        .setUnknownFields(
            UnknownFieldSet.newBuilder()
                .addField(
                    3,
                    UnknownFieldSet.Field.newBuilder()
                        .addLengthDelimited(ByteString.copyFrom(options))
                        .build())
                .build())
        .build();
  }

  /** etcd answers "... already exists" (or "already granted") to a step done before. */
  private static void ignoringExisting(Runnable step) {
    try {
      step.run();
    } catch (EtcdException e) {
      if (e.getMessage() == null || !e.getMessage().contains("already")) {
        throw e;
      }
    }
  }

  private static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
