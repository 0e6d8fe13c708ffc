package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OperationQueueTest {
    @Test
    void aProxyHasOneOperationAtATime() throws Exception {
        OperationQueue queue = new OperationQueue(4);
        CountDownLatch release = new CountDownLatch(1);
        assertThat(queue.submit("lab/p1", "lab/zone-a", () -> await(release))).isTrue();

        assertThat(queue.submit("lab/p1", "lab/zone-a", () -> { })).isFalse();
        assertThat(queue.busy("lab/p1")).isTrue();
        release.countDown();
        assertThat(queue.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(queue.submit("lab/p1", "lab/zone-a", () -> { })).isTrue();
        queue.close();
    }

    @Test
    void aHostRunsAtMostItsLimitAndOtherHostsDoNotWait() throws Exception {
        OperationQueue queue = new OperationQueue(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        for (int index = 0; index < 6; index++) {
            queue.submit("lab/a" + index, "lab/zone-a", () -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                await(release);
                running.decrementAndGet();
            });
        }
        CountDownLatch otherHost = new CountDownLatch(1);
        queue.submit("lab/b", "lab/zone-b", otherHost::countDown);

        assertThat(otherHost.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(most.get()).isEqualTo(2);
        release.countDown();
        assertThat(queue.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(most.get()).isEqualTo(2);
    }

    @Test
    void closeDropsQueuedOperationsAndInterruptStopsRunningOnes() throws Exception {
        OperationQueue queue = new OperationQueue(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        queue.submit("lab/p1", "lab/zone-a", () -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException expected) {
                Thread.currentThread().interrupt();
            }
        });
        queue.submit("lab/p2", "lab/zone-a", ran::incrementAndGet);
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

        queue.close();
        assertThat(queue.submit("lab/p3", "lab/zone-b", ran::incrementAndGet)).isFalse();
        assertThat(queue.awaitIdle(Duration.ofMillis(100))).isFalse();
        queue.interrupt();

        assertThat(queue.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(ran.get()).isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
