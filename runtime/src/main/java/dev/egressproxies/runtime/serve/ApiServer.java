package dev.egressproxies.runtime.serve;

import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.time.Duration;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP(S) server of {@code serve}, on Jetty. Jetty parses requests without holding a thread
 * while it waits for bytes, so a client that trickles its headers holds only its connection; the
 * limits below bound what any client can hold: header size, body size, idle time and connections.
 */
final class ApiServer implements AutoCloseable {
    /** The largest request head accepted. */
    static final int MAX_HEADER_BYTES = 8 * 1024;
    /** The largest request body accepted (the API's requests carry none). */
    static final long MAX_BODY_BYTES = 64 * 1024;
    /** How long a connection may stay silent. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(20);
    /** How many connections may be open at once. */
    static final int MAX_CONNECTIONS = 512;
    private static final int MAX_THREADS = 32;

    private final Server server;
    private final ServerConnector connector;

    /**
     * Builds the server; {@link #start} opens the port.
     *
     * @param listen   the address to listen on (port 0: any free port)
     * @param tls      the key store for HTTPS, or null for plain HTTP
     * @param handler  the routes
     */
    ApiServer(InetSocketAddress listen, KeyStore tls, Handler handler) {
        QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 4);
        threads.setName("serve-http");
        threads.setDaemon(true);
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(MAX_HEADER_BYTES);
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        if (tls == null) {
            connector = new ServerConnector(server, new HttpConnectionFactory(http));
        } else {
            // The certificate need not name the address clients dial (127.0.0.1, a bare IP): no SNI host check.
            http.addCustomizer(new SecureRequestCustomizer(false));
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setKeyStore(tls);
            ssl.setKeyStorePassword(new String(PemKeyStore.PASSWORD));
            connector = new ServerConnector(server, new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
                    new HttpConnectionFactory(http));
        }
        connector.setHost(listen.getHostString());
        connector.setPort(listen.getPort());
        connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
        server.addConnector(connector);
        server.addBean(new ConnectionLimit(MAX_CONNECTIONS, server));
        SizeLimitHandler limits = new SizeLimitHandler(MAX_BODY_BYTES, -1);
        limits.setHandler(handler);
        server.setHandler(limits);
        server.setStopTimeout(2000);
    }

    /** Opens the port and starts answering. */
    void start() throws Exception {
        server.start();
    }

    /** The port it listens on (the one chosen, when asked for port 0). */
    int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
