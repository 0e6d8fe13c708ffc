package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.libvirt.AddressSource;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The choice of the address a running domain is reached at: the first routable IPv4 address from
 * the host's ARP table, else from the guest agent.
 *
 * <p>Both sources fail routinely while a guest boots (no traffic seen yet, agent not installed
 * yet), so a libvirt error from a source means "no address yet", never a failed call. That holds
 * even for the codes that can mean a broken link, because the ARP source reports its own netlink
 * failures with them; a link that really broke fails the caller's next libvirt call. Any other
 * exception is a broken link and propagates, so the connection pool sees it.
 */
final class AddressSelector {
    private static final Logger LOG = LoggerFactory.getLogger(AddressSelector.class);
    private static final List<AddressSource> SOURCES = List.of(AddressSource.ARP, AddressSource.AGENT);
    private static final Pattern DOTTED_QUAD = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private AddressSelector() {
    }

    /** The domain's address, or {@code ""} when no source knows a routable one yet. */
    static String addressOf(LibvirtHost libvirt, Domain domain) {
        for (AddressSource source : SOURCES) {
            List<InterfaceAddress> addresses;
            try {
                addresses = libvirt.interfaceAddresses(domain, source);
            } catch (LibvirtException notYet) {
                LOG.debug("no addresses of domain {} from source {} yet: {}", domain.name(), source,
                        notYet.getMessage());
                continue;
            }
            Optional<String> routable = firstRoutableIpv4(addresses);
            if (routable.isPresent()) {
                return routable.get();
            }
        }
        return "";
    }

    /** The first IPv4 address that is not loopback, link-local or unspecified. */
    static Optional<String> firstRoutableIpv4(List<InterfaceAddress> addresses) {
        for (InterfaceAddress address : addresses) {
            if (address.ipv4() && isRoutable(address.address())) {
                return Optional.of(address.address());
            }
        }
        return Optional.empty();
    }

    private static boolean isRoutable(String text) {
        // Parsed by hand: InetAddress.getByName would resolve anything that is not a literal via DNS.
        Matcher quad = text == null ? null : DOTTED_QUAD.matcher(text);
        if (quad == null || !quad.matches()) {
            return false;
        }
        byte[] octets = new byte[4];
        for (int index = 0; index < 4; index++) {
            int octet = Integer.parseInt(quad.group(index + 1));
            if (octet > 255) {
                return false;
            }
            octets[index] = (byte) octet;
        }
        try {
            InetAddress address = InetAddress.getByAddress(octets);
            return !address.isLoopbackAddress() && !address.isLinkLocalAddress() && !address.isAnyLocalAddress();
        } catch (UnknownHostException impossible) {
            // Only thrown for an array that is neither 4 nor 16 bytes long.
            throw new IllegalStateException(impossible);
        }
    }
}
