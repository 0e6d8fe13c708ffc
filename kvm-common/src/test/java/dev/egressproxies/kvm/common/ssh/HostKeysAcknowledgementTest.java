package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.sshd.common.channel.RequestHandler;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;

class HostKeysAcknowledgementTest {
    private final List<String> sent = new ArrayList<>();

    @Test
    void theHostKeyAnnouncementIsAnsweredAtOnceAndLeftToTheNextHandler() throws Exception {
        RequestHandler.Result result = new SshTunnel.HostKeysAcknowledgement()
                .process(service(), "hostkeys-00@openssh.com", false, new ByteArrayBuffer());

        assertThat(sent).containsExactly("sendIgnoreMessage");
        assertThat(result).isEqualTo(RequestHandler.Result.Unsupported);
    }

    @Test
    void otherGlobalRequestsSendNothing() throws Exception {
        RequestHandler.Result result = new SshTunnel.HostKeysAcknowledgement()
                .process(service(), "keepalive@openssh.com", true, new ByteArrayBuffer());

        assertThat(sent).isEmpty();
        assertThat(result).isEqualTo(RequestHandler.Result.Unsupported);
    }

    /** A connection service whose session records the names of the methods called on it. */
    private ConnectionService service() {
        Session session = (Session) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Session.class},
                (proxy, method, arguments) -> {
                    sent.add(method.getName());
                    return null;
                });
        return (ConnectionService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConnectionService.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("getSession")) {
                        return session;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
