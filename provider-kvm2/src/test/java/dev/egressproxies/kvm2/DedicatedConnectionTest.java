package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The image upload runs over a connection dialled for it and closed after it, never over the
 * pooled connection: a call on the pooled connection whose deadline passes cuts that connection,
 * and must not kill an upload that is under way.
 */
class DedicatedConnectionTest {
    private final Kvm2Fixture fixture = Kvm2Fixture.standard();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        fixture.close();
    }

    @Test
    void theBaseIsCreatedAndUploadedOverItsOwnConnectionAndTheMarkerOverThePooledOne() throws InterruptedException {
        fixture.create("proxy-1");

        assertThat(fixture.dialer.dialled()).containsExactly("host-1#1", "host-1#2");
        assertThat(fixture.host.linkCalls()).filteredOn(call -> call.startsWith("host-1#2:"))
                .containsExactly("host-1#2:lookupPool", "host-1#2:createVolume", "host-1#2:uploadVolume");
        assertThat(fixture.host.linkCalls()).containsSubsequence("host-1#2:uploadVolume", "host-1#1:refreshPool",
                "host-1#1:createVolume", "host-1#1:uploadVolume");
        assertThat(fixture.dialer.awaitClosed(1)).as("the transfer's connection is closed after it").containsExactly(
                "host-1#2");
        assertThat(fixture.volumes()).contains(fixture.baseVolume, fixture.marker);
    }

    @Test
    void aCachedImageDialsNoSecondConnection() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        assertThat(fixture.dialer.dialled()).containsExactly("host-1#1");
    }

    @Test
    void aPollCancelledOnThePooledConnectionDoesNotKillAnUploadUnderWay() throws Exception {
        fixture.server.serveInTwoParts(IMAGE_PATH, IMAGE_BYTES, 4096, release);
        Future<String> create = threads.submit(() -> fixture.create("proxy-1"));
        awaitUploadUnderWay();
        fixture.host.after("lookupDomain", () -> sleep(Duration.ofMillis(800)));

        ProviderException poll = catchProviderException(() -> fixture.provider.get("host-1/proxy-9",
                Deadline.after(Duration.ofMillis(200))));
        release.countDown();

        assertThat(poll.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(fixture.dialer.aborted()).as("the poll's deadline cut the pooled connection")
                .containsExactly("host-1#1");
        assertThat(create.get(30, TimeUnit.SECONDS)).isEqualTo("host-1/proxy-1");
        assertThat(fixture.host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
    }

    private void awaitUploadUnderWay() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!fixture.host.linkCalls().contains("host-1#2:uploadVolume") && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(fixture.host.linkCalls()).contains("host-1#2:uploadVolume");
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
