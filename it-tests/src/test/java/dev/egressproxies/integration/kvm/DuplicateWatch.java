package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Polls both hosts' domain lists (read locally, so a killed sshd does not blind it) and records
 * every name of the entry that exists on both at once.
 */
final class DuplicateWatch implements AutoCloseable {
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger polls = new AtomicInteger();
    private final Thread thread;
    private volatile boolean stopped;

    private DuplicateWatch(TestStack stack, String prefix) {
        List<Virsh> hosts = StackHypervisors.all(stack);
        thread = new Thread(() -> {
            while (!stopped) {
                try {
                    List<String> first = hosts.get(0).domainsNamed(prefix);
                    List<String> second = hosts.get(1).domainsNamed(prefix);
                    first.stream().filter(second::contains).filter(name -> !seen.contains(name)).forEach(seen::add);
                    polls.incrementAndGet();
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException | AssertionError virshFailed) {
                    if (stopped) {
                        return;
                    }
                    // A busy libvirtd may refuse one poll (virsh's runner reports with an AssertionError).
                }
            }
        }, "duplicate-name-watch");
        thread.setDaemon(true);
    }

    static DuplicateWatch start(TestStack stack, String prefix) {
        DuplicateWatch watch = new DuplicateWatch(stack, prefix);
        watch.thread.start();
        return watch;
    }

    int polls() {
        return polls.get();
    }

    List<String> seen() {
        return List.copyOf(seen);
    }

    void stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
