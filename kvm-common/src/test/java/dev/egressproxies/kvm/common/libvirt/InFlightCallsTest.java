package dev.egressproxies.kvm.common.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class InFlightCallsTest {
    private final AtomicInteger closes = new AtomicInteger();
    private final InFlightCalls calls = new InFlightCalls(closes::incrementAndGet);

    @Test
    void closesAtOnceWhenNoCallIsInside() {
        assertThat(calls.closeWhenIdle()).isDone();
        assertThat(closes).hasValue(1);
    }

    @Test
    void leavesTheCloseToTheLastCallOut() {
        assertThat(calls.tryEnter()).isTrue();
        assertThat(calls.tryEnter()).isTrue();

        var closed = calls.closeWhenIdle();
        assertThat(closed).isNotDone();
        calls.leave();
        assertThat(closes).hasValue(0);
        calls.leave();

        assertThat(closed).isDone();
        assertThat(closes).hasValue(1);
    }

    @Test
    void refusesCallsOnceACloseWasAskedFor() {
        assertThat(calls.tryEnter()).isTrue();
        calls.closeWhenIdle();

        assertThat(calls.tryEnter()).isFalse();
    }

    @Test
    void closesExactlyOnceHoweverOftenAskedFor() {
        calls.closeWhenIdle();
        calls.closeWhenIdle();

        assertThat(closes).hasValue(1);
    }

    @Test
    void aLeaveWithoutAnEnterIsAProgrammingError() {
        assertThatThrownBy(calls::leave).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void underContentionTheCloseRunsOnceAndOnlyWhenEveryCallHasLeft() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger insideWhenClosed = new AtomicInteger(-1);
        AtomicInteger closeCount = new AtomicInteger();
        InFlightCalls contended = new InFlightCalls(() -> {
            insideWhenClosed.set(inside.get());
            closeCount.incrementAndGet();
        });
        ExecutorService threads = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int thread = 0; thread < 8; thread++) {
            workers.add(threads.submit(() -> {
                start.await();
                for (int call = 0; call < 20_000; call++) {
                    if (contended.tryEnter()) {
                        inside.incrementAndGet();
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                        contended.leave();
                    }
                }
                return null;
            }));
        }

        start.countDown();
        Thread.sleep(5);
        var closed = contended.closeWhenIdle();
        for (Future<?> worker : workers) {
            worker.get(20, TimeUnit.SECONDS);
        }
        threads.shutdown();

        assertThat(closed).isDone();
        assertThat(closeCount).hasValue(1);
        assertThat(insideWhenClosed).hasValue(0);
    }
}
