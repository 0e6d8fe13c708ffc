package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Creates that need one uncached image on one host at the same time: one fetches, the others wait
 * for it on the (host, base volume) lock and then find the base complete; a waiter whose deadline
 * passes returns at once instead of waiting out the fetch.
 */
class ConcurrentFetchTest {
    private static final int CREATES = 5;

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
    void concurrentCreatesFromOneUncachedImageFetchItOnce() throws Exception {
        fixture.server.serveAfter(IMAGE_PATH, IMAGE_BYTES, release);
        List<Future<String>> creates = new ArrayList<>();
        for (int index = 0; index < CREATES; index++) {
            String name = "proxy-" + index;
            creates.add(threads.submit(() -> fixture.create(name)));
        }
        awaitGets(1);
        Thread.sleep(200);
        release.countDown();

        for (Future<String> create : creates) {
            assertThat(create.get(30, TimeUnit.SECONDS)).startsWith("host-1/proxy-");
        }
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        for (int index = 0; index < CREATES; index++) {
            assertThat(fixture.host.domain("proxy-" + index).state).isEqualTo(DomainState.RUNNING);
        }
        assertThat(fixture.host.callCounts()).containsEntry("refreshPool", 1);
    }

    @Test
    void aCallerWhoseDeadlinePassesWhileAnotherFetchesReturnsPromptly() throws Exception {
        fixture.server.serveAfter(IMAGE_PATH, IMAGE_BYTES, release);
        Future<String> fetching = threads.submit(() -> fixture.create("proxy-1"));
        awaitGets(1);

        long started = System.nanoTime();
        ProviderException error = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-2", Kvm2Fixture.IMAGE), Deadline.after(Duration.ofMillis(300))));
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("deadline exceeded",
                "another create fetching image debian-12 to host 'host-1'");
        assertThat(millis).as("returned within a second of its deadline").isLessThan(1300);
        assertThat(fetching.isDone()).as("the fetch goes on").isFalse();

        release.countDown();
        assertThat(fetching.get(30, TimeUnit.SECONDS)).isEqualTo("host-1/proxy-1");
        fixture.create("proxy-2");
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
    }

    private void awaitGets(int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fixture.server.gets(IMAGE_PATH) < count && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(count);
    }
}
