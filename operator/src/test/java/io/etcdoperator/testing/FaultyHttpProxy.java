package io.etcdoperator.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP/1.1 proxy on loopback in front of a real server (s3proxy in the tests), that breaks the
 * requests whose request line matches a pattern, the way an object store fails in production: it
 * answers 500, or it sends the head and the first bytes of the body and then stalls (the connection
 * stays open and silent until the proxy closes). Everything else is relayed unchanged.
 *
 * <p>One request per connection: each request is read whole (head, and a body of Content-Length),
 * sent upstream with {@code Connection: close}, and the whole answer relayed back, which also
 * closes the client's connection, so every request is seen and judged on its own.
 */
public final class FaultyHttpProxy implements Closeable {
  /** What happens to a matching request. */
  public enum Fault {
    NONE,
    /** 500 Internal Server Error, with an S3-style body. */
    ERROR_500,
    /** The head and {@code stallAfterBytes} of the body, then silence. */
    STALL,
    /** The head and {@code stallAfterBytes} of the body, then the connection closed. */
    CUT,
    /**
     * The request is carried out upstream, and its answer lost: the connection closes unanswered.
     */
    LOSE_ANSWER,
    /** 200 OK with an S3 InternalError body, as a CompleteMultipartUpload that failed late. */
    ERROR_IN_200
  }

  private final ServerSocket server;
  private final URI upstream;
  private final AtomicReference<Fault> fault = new AtomicReference<>(Fault.NONE);
  private volatile java.util.regex.Pattern matching = java.util.regex.Pattern.compile("$^");
  private volatile int stallAfterBytes;
  private final AtomicInteger faultsLeft = new AtomicInteger(Integer.MAX_VALUE);
  private final AtomicInteger faulted = new AtomicInteger();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final CopyOnWriteArrayList<Socket> open = new CopyOnWriteArrayList<>();

  private FaultyHttpProxy(URI upstream) throws IOException {
    this.upstream = upstream;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "faulty-proxy");
    t.setDaemon(true);
    t.start();
  }

  /** A proxy in front of {@code upstream} (http://host:port), relaying everything for now. */
  public static FaultyHttpProxy in(String upstream) throws IOException {
    return new FaultyHttpProxy(URI.create(upstream));
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** From now on, requests whose request line has a match of {@code regex} get {@code f}. */
  public void fail(String regex, Fault f, int stallAfter) {
    failFirst(regex, f, stallAfter, Integer.MAX_VALUE);
  }

  /** As {@link #fail}, for the next {@code times} matching requests only; later ones pass. */
  public void failFirst(String regex, Fault f, int stallAfter, int times) {
    faultsLeft.set(times);
    matching = java.util.regex.Pattern.compile(regex);
    stallAfterBytes = stallAfter;
    fault.set(f);
  }

  /** How many requests were broken so far. */
  public int faulted() {
    return faulted.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        open.add(client);
        Thread t = new Thread(() -> serve(client), "faulty-proxy-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      byte[] body = in.readNBytes(contentLength(head));
      String requestLine = head.substring(0, head.indexOf("\r\n"));
      Fault f =
          matching.matcher(requestLine).find() && faultsLeft.getAndDecrement() > 0
              ? fault.get()
              : Fault.NONE;
      OutputStream out = client.getOutputStream();
      if (f == Fault.ERROR_500 || f == Fault.ERROR_IN_200) {
        faulted.incrementAndGet();
        byte[] xml =
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>"
                    + "<Message>injected by FaultyHttpProxy</Message></Error>")
                .getBytes(StandardCharsets.UTF_8);
        out.write(
            ((f == Fault.ERROR_500 ? "HTTP/1.1 500 Internal Server Error" : "HTTP/1.1 200 OK")
                    + "\r\nContent-Type: application/xml\r\n"
                    + "Content-Length: "
                    + xml.length
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(xml);
        out.flush();
        return;
      }
      try (Socket up = new Socket(upstream.getHost(), upstream.getPort())) {
        OutputStream upOut = up.getOutputStream();
        upOut.write(withConnectionClose(head).getBytes(StandardCharsets.ISO_8859_1));
        upOut.write(body);
        upOut.flush();
        InputStream upIn = up.getInputStream();
        if (f == Fault.LOSE_ANSWER) {
          faulted.incrementAndGet();
          upIn.readAllBytes();
          return;
        }
        if (f == Fault.CUT) {
          faulted.incrementAndGet();
          out.write(readHead(upIn).getBytes(StandardCharsets.ISO_8859_1));
          out.write(upIn.readNBytes(stallAfterBytes));
          out.flush();
          return;
        }
        if (f == Fault.STALL) {
          faulted.incrementAndGet();
          String answer = readHead(upIn);
          out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
          out.write(upIn.readNBytes(stallAfterBytes));
          out.flush();
          closed.await(10, TimeUnit.MINUTES);
          return;
        }
        upIn.transferTo(out);
        out.flush();
      }
    } catch (IOException e) {
      // the client or the upstream went away: nothing to relay
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      open.remove(client);
    }
  }

  /** The head up to and with its blank line, or null at the end of the stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    int b;
    while ((b = in.read()) != -1) {
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0
          && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
        return Integer.parseInt(line.substring(colon + 1).trim());
      }
    }
    return 0;
  }

  private static String withConnectionClose(String head) {
    StringBuilder b = new StringBuilder();
    for (String line : head.split("\r\n")) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:") && !line.isEmpty()) {
        b.append(line).append("\r\n");
      }
    }
    return b.append("Connection: close\r\n\r\n").toString();
  }

  @Override
  public void close() throws IOException {
    closed.countDown();
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }

  /** For a test's message: where it listens and what it relays to. */
  @Override
  public String toString() {
    return endpoint() + " -> " + new InetSocketAddress(upstream.getHost(), upstream.getPort());
  }
}
