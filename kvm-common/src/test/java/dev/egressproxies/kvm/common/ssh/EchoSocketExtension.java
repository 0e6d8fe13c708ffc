package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The far end the tunnel tests forward to: a unix echo server for the whole test class, and the
 * check after every test that no tunnel thread outlived its tunnel.
 */
final class EchoSocketExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    private UnixTestServer echo;

    /** The echo server's socket path, as a tunnel's remote socket. */
    String socketPath() {
        return echo.socketPath().toString();
    }

    /** How many connections the echo server has accepted so far. */
    int acceptedConnections() {
        return echo.acceptedConnections();
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        echo = UnixTestServer.echo();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        echo.close();
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        assertThat(TunnelThreadsCount.awaitNone(5_000)).as("tunnel threads left after the test").isEmpty();
    }
}
