package io.etcdoperator.sandbox.api;

import java.net.Socket;
import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * HTTP clients of the sandbox's API server, whose certificate is self-signed and made anew at each
 * start (as {@code insecure-skip-tls-verify} in its kubeconfig says): TLS, without checking whose
 * certificate it is.
 */
public final class SelfSigned {
  private SelfSigned() {}

  /** A JDK HTTP client that accepts the sandbox's certificate. */
  public static HttpClient httpClient(Duration connectTimeout) {
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {new TrustAll()}, null);
      return HttpClient.newBuilder().sslContext(tls).connectTimeout(connectTimeout).build();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
