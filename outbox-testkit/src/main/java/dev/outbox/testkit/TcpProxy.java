package dev.outbox.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a local port in front of a broker, so that a test can cut the publisher's
 * connection in the middle of a batch (a lost network, seen from the client) or stall it (a broker
 * that is reachable but does not answer: what either side sends is held, the connection stays open)
 * without touching the shared broker. It keeps listening after a cut, so the client can reconnect.
 * Used by the RabbitMQ and Service Bus adapters' tests.
 */
public final class TcpProxy implements AutoCloseable, BrokerSwitch {

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicLong bytesToBroker = new AtomicLong();
  private final AtomicLong connections = new AtomicLong();
  private final Object flow = new Object();
  private boolean paused;
  private volatile boolean down;

  /** Starts listening on a free local port. */
  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("proxy-accept", this::acceptLoop).start();
  }

  /** The local port to connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** Bytes forwarded from clients to the broker so far. */
  public long bytesToBroker() {
    return bytesToBroker.get();
  }

  /** Connections accepted so far. */
  public long connections() {
    return connections.get();
  }

  /**
   * Stalls every proxied connection, both ways: what either side sends is held (the connections
   * stay open) until {@link #resume()}.
   */
  public void pause() {
    synchronized (flow) {
      paused = true;
    }
  }

  /** Lets the held traffic through, in order, and what follows. */
  public void resume() {
    synchronized (flow) {
      paused = false;
      flow.notifyAll();
    }
  }

  /** Closes every proxied connection at once, as a network failure would. */
  public void cutConnections() {
    for (Socket socket : sockets) {
      close(socket);
    }
    sockets.clear();
  }

  /**
   * Takes the broker away, as an outage would: every proxied connection is closed, and a new one is
   * closed as soon as it is accepted (the client sees its connection reset) until {@link #up()}.
   */
  @Override
  public void down() {
    down = true;
    cutConnections();
  }

  /** Brings the broker back after {@link #down()}: new connections go through again. */
  @Override
  public void up() {
    down = false;
  }

  /**
   * Whether the broker is taken away.
   *
   * @return {@code true} between {@link #down()} and {@link #up()}
   */
  public boolean isDown() {
    return down;
  }

  @Override
  public void close() {
    close(server);
    cutConnections();
    resume();
  }

  private void awaitFlowing() throws IOException {
    synchronized (flow) {
      while (paused) {
        try {
          flow.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while paused", e);
        }
      }
    }
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (down) {
          close(client);
          continue;
        }
        Socket broker = new Socket(targetHost, targetPort);
        // Forward each write at once, as the client's own socket would: without it Nagle's
        // algorithm holds small writes behind unacknowledged ones, about 40 ms per round trip.
        client.setTcpNoDelay(true);
        broker.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(broker);
        connections.incrementAndGet();
        daemon("proxy-up", () -> pump(client, broker, bytesToBroker)).start();
        daemon("proxy-down", () -> pump(broker, client, new AtomicLong())).start();
      } catch (IOException e) {
        // closed, or the broker is down: the client sees a failed connect
      }
    }
  }

  private void pump(Socket from, Socket to, AtomicLong counter) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        awaitFlowing();
        out.write(buffer, 0, n);
        counter.addAndGet(n);
      }
    } catch (IOException e) {
      // cut
    } finally {
      close(from);
      close(to);
    }
  }

  private static Thread daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    return thread;
  }

  private static void close(java.io.Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
