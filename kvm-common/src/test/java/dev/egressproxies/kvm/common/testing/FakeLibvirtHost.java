package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A hand-written, in-memory libvirt host: domains, pools and volumes that behave like libvirtd's
 * for the calls the backend makes (including the error codes it answers with), with failures that
 * tests inject per method or per domain, hooks that run after a method, and a count of every call.
 *
 * <p>Handles are names, as with libvirt: a handle to something deleted meanwhile fails with the
 * "no such" code. Safe for concurrent use; an upload reads its stream outside the lock.
 */
public final class FakeLibvirtHost implements LibvirtHost {
    private static final Pattern NAME = Pattern.compile("<name>([^<]*)</name>");
    private static final Pattern METADATA = Pattern.compile("<metadata>\\s*(.*?)\\s*</metadata>", Pattern.DOTALL);
    // Quote style and units as any writer of libvirt XML may choose them.
    private static final Pattern SOURCE_FILE = Pattern.compile("<source file=[\"']([^\"']*)[\"']\\s*/>");
    private static final Pattern MEMORY = Pattern.compile("<memory unit=[\"'](KiB|MiB)[\"']>(\\d+)</memory>");
    private static final Pattern CAPACITY =
            Pattern.compile("<capacity unit=[\"'](bytes|KiB|MiB|GiB)[\"']>(\\d+)</capacity>");

    /** A domain as this fake keeps it. */
    public static final class DomainRecord {
        public final String name;
        public String xml;
        /** The content of its {@code <metadata>} as defined; handed back in libvirt's form ({@link LibvirtMetadata}). */
        public String metadata;
        public DomainState state = DomainState.SHUTOFF;
        public final Map<AddressSource, List<InterfaceAddress>> addresses = new EnumMap<>(AddressSource.class);
        public final Map<AddressSource, RuntimeException> addressFailures = new EnumMap<>(AddressSource.class);
        public RuntimeException metadataFailure;
        public RuntimeException stateFailure;

        DomainRecord(String name) {
            this.name = name;
        }

        /** The XML it was defined with, parsed for assertions. */
        public ParsedXml parsed() {
            return ParsedXml.of(xml);
        }
    }

    /** A volume as this fake keeps it. */
    public static final class VolumeRecord {
        public final String name;
        public final String path;
        public final String xml;
        public final long capacity;
        public byte[] content = new byte[0];

        VolumeRecord(String name, String path, String xml, long capacity) {
            this.name = name;
            this.path = path;
            this.xml = xml;
            this.capacity = capacity;
        }

        /** The XML it was created with, parsed for assertions. */
        public ParsedXml parsed() {
            return ParsedXml.of(xml);
        }
    }

    private record DomainHandle(String name) implements Domain {
    }

    private record PoolHandle(String name) implements StoragePool {
    }

    private record VolumeHandle(String pool, String name, String path) implements StorageVolume {
    }

    private final String hostName;
    private final Map<String, DomainRecord> domains = new LinkedHashMap<>();
    private final Map<String, Map<String, VolumeRecord>> pools = new LinkedHashMap<>();
    private final Map<String, Boolean> poolRunning = new HashMap<>();
    private final Map<String, Long> poolCapacity = new HashMap<>();
    private final Map<String, String> poolTypes = new HashMap<>();
    private final Map<String, Deque<RuntimeException>> failures = new HashMap<>();
    private final Map<String, Deque<Runnable>> afterHooks = new HashMap<>();
    private final Map<String, Integer> calls = new TreeMap<>();
    private final List<String> callLog = new ArrayList<>();
    private final List<String> linkCalls = new CopyOnWriteArrayList<>();
    private final Set<String> missingInterfaces = new HashSet<>();
    private long memoryBytes = 16L << 30;
    private final Map<String, String> domainCapabilities = new HashMap<>(Map.of(
            "kvm", domainCapabilitiesXml("kvm"), "qemu", domainCapabilitiesXml("qemu")));

    public FakeLibvirtHost(String hostName) {
        this.hostName = hostName;
    }

    // ---- set-up and inspection for tests ----

    /** The host's name, as its host info reports it. */
    public String hostName() {
        return hostName;
    }

    /** Sets the memory the host reports (16 GiB unless set). */
    public synchronized FakeLibvirtHost withMemory(long bytes) {
        memoryBytes = bytes;
        return this;
    }

    /** Adds a running, empty pool. */
    public synchronized FakeLibvirtHost withPool(String pool) {
        pools.put(pool, new LinkedHashMap<>());
        poolRunning.put(pool, true);
        return this;
    }

    /** Marks a pool as defined but not running. */
    public synchronized void stopPool(String pool) {
        poolRunning.put(pool, false);
    }

    /** Sets a pool's type, as its XML reports it ({@code dir} unless set). */
    public synchronized FakeLibvirtHost withPoolType(String pool, String type) {
        poolTypes.put(pool, type);
        return this;
    }

    /** Sets a pool's size; its available bytes are that less its volumes' capacities. */
    public synchronized FakeLibvirtHost withPoolCapacity(String pool, long bytes) {
        poolCapacity.put(pool, bytes);
        return this;
    }

    /**
     * This host as seen through one connection: every call is also logged as {@code link:method}
     * ({@link #linkCalls()}), so tests see which connection did what.
     */
    public LibvirtHost through(String link) {
        return (LibvirtHost) Proxy.newProxyInstance(LibvirtHost.class.getClassLoader(),
                new Class<?>[] {LibvirtHost.class}, (proxy, method, arguments) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(this, arguments);
                    }
                    linkCalls.add(link + ":" + method.getName());
                    try {
                        return method.invoke(this, arguments);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });
    }

    /** The calls made through {@link #through} views, as {@code link:method}, in order. */
    public List<String> linkCalls() {
        return List.copyOf(linkCalls);
    }

    /** Removes a pool and its volumes. */
    public synchronized void removePool(String pool) {
        pools.remove(pool);
        poolRunning.remove(pool);
    }

    /** Puts a volume with this content into a pool, as something earlier left it. */
    public synchronized VolumeRecord putVolume(String pool, String name, byte[] content) {
        VolumeRecord volume = new VolumeRecord(name, pathOf(pool, name), "<volume/>", content.length);
        volume.content = content.clone();
        requirePoolRecord(pool).put(name, volume);
        return volume;
    }

    /** Removes a volume, as another process would. */
    public synchronized void removeVolume(String pool, String name) {
        pools.get(pool).remove(name);
    }

    /** Defines a domain directly, as someone working on the host by hand or an earlier create would. */
    public synchronized DomainRecord putDomain(String name, DomainState state, String metadata) {
        DomainRecord domain = new DomainRecord(name);
        domain.state = state;
        domain.metadata = metadata;
        domain.xml = "<domain><name>" + name + "</name></domain>";
        domains.put(name, domain);
        return domain;
    }

    /** The domain of that name, or null. */
    public synchronized DomainRecord domain(String name) {
        return domains.get(name);
    }

    /** The names of the defined domains. */
    public synchronized List<String> domainNames() {
        return List.copyOf(domains.keySet());
    }

    /** The volume of that name in the pool, or null. */
    public synchronized VolumeRecord volume(String pool, String name) {
        Map<String, VolumeRecord> volumes = pools.get(pool);
        return volumes == null ? null : volumes.get(name);
    }

    /** The names of the pool's volumes. */
    public synchronized List<String> volumeNames(String pool) {
        return List.copyOf(requirePoolRecord(pool).keySet());
    }

    /** Makes the next call of {@code method} throw {@code failure}; queued calls fail in order. */
    public synchronized FakeLibvirtHost failNext(String method, RuntimeException failure) {
        failures.computeIfAbsent(method, unused -> new ArrayDeque<>()).add(failure);
        return this;
    }

    /**
     * Runs {@code action} after the next successful call of {@code method}; a hook of a base name
     * ({@code listAllDomains}) also runs after a call counted with a suffix ({@code listAllDomains(active)}).
     */
    public synchronized FakeLibvirtHost after(String method, Runnable action) {
        afterHooks.computeIfAbsent(method, unused -> new ArrayDeque<>()).add(action);
        return this;
    }

    /**
     * A latch that opens once a {@code createVolume} call made volume {@code name} exist in
     * {@code pool}: other volumes created first (a fetch lease, say) leave it shut.
     */
    public CountDownLatch whenVolumeCreated(String pool, String name) {
        CountDownLatch created = new CountDownLatch(1);
        after("createVolume", new Runnable() {
            @Override
            public void run() {
                if (volumeNames(pool).contains(name)) {
                    created.countDown();
                } else {
                    after("createVolume", this);
                }
            }
        });
        return created;
    }

    /** How often each method was called, by name. */
    public synchronized Map<String, Integer> callCounts() {
        return new TreeMap<>(calls);
    }

    /** The methods called, in order. */
    public synchronized List<String> callLog() {
        return List.copyOf(callLog);
    }

    /** How many calls were made in all. */
    public synchronized int totalCalls() {
        return callLog.size();
    }

    /** Forgets the calls made so far. */
    public synchronized void resetCalls() {
        calls.clear();
        callLog.clear();
    }

    /** A libvirt error with that code, as the daemon would send it. */
    public static LibvirtException error(LibvirtErrorCode code, String message) {
        return new LibvirtException(code, message);
    }

    /**
     * A libvirt error as the daemon sends it with the part of libvirt that raised it and, for a
     * failed OS call, its OS error number (such as 19, ENODEV, for a missing bridge).
     */
    public static LibvirtException daemonError(LibvirtErrorCode code, LibvirtErrorSource source, int systemErrorNumber,
                                               String message) {
        return new LibvirtException(code.number(), source.number(), systemErrorNumber, message, null);
    }

    /** Makes the host lack the network interface (a bridge) of that name; every other one exists. */
    public synchronized FakeLibvirtHost withoutInterface(String name) {
        missingInterfaces.add(name);
        return this;
    }

    /**
     * Sets the domain capabilities the host reports for a domain type; null makes it refuse the
     * type, as libvirt does for one the emulator does not support.
     */
    public synchronized FakeLibvirtHost withDomainCapabilities(String domainType, String xml) {
        domainCapabilities.put(domainType, xml);
        return this;
    }

    /**
     * Domain capabilities as this libvirt 9.0 reports them, shortened: the Debian OVMF loader, the
     * host CPU modes and two named models, one usable.
     */
    public static String domainCapabilitiesXml(String domainType) {
        return "<domainCapabilities><path>/usr/bin/qemu-system-x86_64</path><domain>" + domainType + "</domain>"
                + "<machine>pc-i440fx-7.2</machine><arch>x86_64</arch><os supported='yes'>"
                + "<enum name='firmware'><value>efi</value></enum><loader supported='yes'>"
                + "<value>/usr/share/OVMF/OVMF_CODE_4M.fd</value><enum name='type'><value>rom</value>"
                + "<value>pflash</value></enum></loader></os><cpu>"
                + "<mode name='host-passthrough' supported='yes'/><mode name='maximum' supported='yes'/>"
                + "<mode name='host-model' supported='yes'><model fallback='forbid'>kvm64</model></mode>"
                + "<mode name='custom' supported='yes'><model usable='yes' vendor='unknown'>qemu64</model>"
                + "<model usable='no' vendor='Intel'>Skylake-Client</model></mode></cpu></domainCapabilities>";
    }

    // ---- LibvirtHost ----

    @Override
    public Optional<Domain> lookupDomain(String name) {
        Optional<Domain> found;
        synchronized (this) {
            enter("lookupDomain");
            found = Optional.ofNullable(domains.get(name)).map(domain -> (Domain) new DomainHandle(domain.name));
        }
        afterCall("lookupDomain");
        return found;
    }

    @Override
    public Domain defineDomain(String xml) {
        Domain defined;
        synchronized (this) {
            enter("defineDomain");
            Matcher name = NAME.matcher(xml);
            if (!name.find()) {
                throw error(LibvirtErrorCode.XML_ERROR, "missing domain name");
            }
            DomainRecord domain = domains.computeIfAbsent(name.group(1), DomainRecord::new);
            domain.xml = xml;
            Matcher metadata = METADATA.matcher(xml);
            domain.metadata = metadata.find() ? metadata.group(1) : null;
            defined = new DomainHandle(domain.name);
        }
        afterCall("defineDomain");
        return defined;
    }

    @Override
    public void startDomain(Domain handle) {
        synchronized (this) {
            enter("startDomain");
            DomainRecord domain = requireDomain(handle);
            if (domain.state.isActive() || domain.state == DomainState.PAUSED) {
                throw error(LibvirtErrorCode.OPERATION_INVALID, "domain is already running");
            }
            Matcher source = SOURCE_FILE.matcher(domain.xml);
            while (source.find()) {
                if (volumeAt(source.group(1)) == null) {
                    throw error(LibvirtErrorCode.OPERATION_FAILED, "Cannot access storage file '" + source.group(1) + "'");
                }
            }
            domain.state = DomainState.RUNNING;
        }
        afterCall("startDomain");
    }

    @Override
    public void destroyDomain(Domain handle) {
        synchronized (this) {
            enter("destroyDomain");
            DomainRecord domain = requireDomain(handle);
            if (!domain.state.isActive() && domain.state != DomainState.PAUSED) {
                throw error(LibvirtErrorCode.OPERATION_INVALID, "domain is not running");
            }
            domain.state = DomainState.SHUTOFF;
        }
        afterCall("destroyDomain");
    }

    @Override
    public void undefineDomain(Domain handle) {
        synchronized (this) {
            enter("undefineDomain");
            requireDomain(handle);
            domains.remove(handle.name());
        }
        afterCall("undefineDomain");
    }

    @Override
    public synchronized DomainState domainState(Domain handle) {
        enter("domainState");
        DomainRecord domain = requireDomain(handle);
        if (domain.stateFailure != null) {
            throw domain.stateFailure;
        }
        return domain.state;
    }

    @Override
    public Optional<String> domainMetadata(Domain handle, String namespaceUri) {
        Optional<String> element;
        synchronized (this) {
            enter("domainMetadata");
            DomainRecord domain = requireDomain(handle);
            if (domain.metadataFailure != null) {
                throw domain.metadataFailure;
            }
            element = domain.metadata == null ? Optional.empty() : LibvirtMetadata.elementIn(domain.metadata, namespaceUri);
        }
        afterCall("domainMetadata");
        return element;
    }

    @Override
    public synchronized String domainXml(Domain handle) {
        enter("domainXml");
        return requireDomain(handle).xml;
    }

    @Override
    public synchronized List<InterfaceAddress> interfaceAddresses(Domain handle, AddressSource source) {
        enter("interfaceAddresses(" + source + ")");
        DomainRecord domain = requireDomain(handle);
        if (!domain.state.isActive()) {
            throw error(LibvirtErrorCode.OPERATION_INVALID, "domain is not running");
        }
        RuntimeException failure = domain.addressFailures.get(source);
        if (failure != null) {
            throw failure;
        }
        return domain.addresses.getOrDefault(source, List.of());
    }

    @Override
    public List<Domain> listAllDomains() {
        List<Domain> listed;
        synchronized (this) {
            enter("listAllDomains");
            listed = domains.keySet().stream().map(name -> (Domain) new DomainHandle(name)).toList();
        }
        afterCall("listAllDomains");
        return listed;
    }

    /** Counted as {@code listAllDomains(active)} or {@code listAllDomains(inactive)}; failures and hooks of {@code listAllDomains} apply. */
    @Override
    public List<Domain> listAllDomains(boolean active) {
        String method = active ? "listAllDomains(active)" : "listAllDomains(inactive)";
        List<Domain> listed;
        synchronized (this) {
            enter(method);
            // As libvirt: a paused or shutting-down domain is active, only a shut-off one is not.
            listed = domains.values().stream()
                    .filter(domain -> (domain.state != DomainState.SHUTOFF) == active)
                    .map(domain -> (Domain) new DomainHandle(domain.name))
                    .toList();
        }
        afterCall(method);
        return listed;
    }

    @Override
    public synchronized Optional<StoragePool> lookupPool(String name) {
        enter("lookupPool");
        return pools.containsKey(name) ? Optional.of(new PoolHandle(name)) : Optional.empty();
    }

    @Override
    public synchronized String poolXml(StoragePool pool) {
        enter("poolXml");
        requirePool(pool);
        return "<pool type='" + poolTypes.getOrDefault(pool.name(), "dir") + "'><name>" + pool.name()
                + "</name><target><path>/var/lib/libvirt/" + pool.name() + "</path></target></pool>";
    }

    @Override
    public synchronized PoolInfo poolInfo(StoragePool pool) {
        enter("poolInfo");
        Map<String, VolumeRecord> volumes = requirePool(pool);
        long allocated = volumes.values().stream().mapToLong(volume -> volume.capacity).sum();
        long capacity = poolCapacity.getOrDefault(pool.name(), 100L << 30);
        return new PoolInfo(poolRunning.get(pool.name()), capacity, allocated, capacity - allocated);
    }

    @Override
    public void refreshPool(StoragePool pool) {
        synchronized (this) {
            enter("refreshPool");
            requirePool(pool);
        }
        afterCall("refreshPool");
    }

    @Override
    public Optional<StorageVolume> lookupVolume(StoragePool pool, String name) {
        Optional<StorageVolume> found;
        synchronized (this) {
            enter("lookupVolume");
            VolumeRecord volume = requirePool(pool).get(name);
            found = volume == null ? Optional.empty() : Optional.of(new VolumeHandle(pool.name(), name, volume.path));
        }
        afterCall("lookupVolume");
        return found;
    }

    @Override
    public synchronized List<String> listVolumeNames(StoragePool pool) {
        enter("listVolumeNames");
        return List.copyOf(requirePool(pool).keySet());
    }

    @Override
    public synchronized String volumeXml(StorageVolume handle) {
        enter("volumeXml");
        return requireVolume(handle).xml;
    }

    @Override
    public StorageVolume createVolume(StoragePool pool, String xml) {
        StorageVolume created;
        synchronized (this) {
            enter("createVolume");
            Map<String, VolumeRecord> volumes = requirePool(pool);
            Matcher name = NAME.matcher(xml);
            Matcher capacity = CAPACITY.matcher(xml);
            if (!name.find() || !capacity.find()) {
                throw error(LibvirtErrorCode.XML_ERROR, "volume XML without name or capacity");
            }
            if (volumes.containsKey(name.group(1))) {
                throw error(LibvirtErrorCode.STORAGE_VOLUME_EXISTS, "storage volume '" + name.group(1) + "' exists already");
            }
            VolumeRecord volume = new VolumeRecord(name.group(1), pathOf(pool.name(), name.group(1)), xml,
                    bytes(Long.parseLong(capacity.group(2)), capacity.group(1)));
            volumes.put(volume.name, volume);
            created = new VolumeHandle(pool.name(), volume.name, volume.path);
        }
        afterCall("createVolume");
        return created;
    }

    @Override
    public void uploadVolume(StorageVolume handle, InputStream data, long length) {
        byte[] content = upload("uploadVolume", handle, data, (int) Math.min(length, Integer.MAX_VALUE));
        if (content.length < length) {
            // As the adapter does: an upload whose source ends early is aborted; the partial write stays.
            throw new UploadSourceException("the upload's source ended after " + content.length + " of " + length
                    + " bytes", null);
        }
        afterCall("uploadVolume");
    }

    @Override
    public void uploadVolumeUntilEnd(StorageVolume handle, InputStream data) {
        upload("uploadVolumeUntilEnd", handle, data, Integer.MAX_VALUE);
        afterCall("uploadVolumeUntilEnd");
    }

    @Override
    public synchronized byte[] downloadVolume(StorageVolume handle, int maximumBytes) {
        enter("downloadVolume");
        byte[] content = requireVolume(handle).content;
        return Arrays.copyOf(content, Math.min(content.length, maximumBytes));
    }

    @Override
    public void deleteVolume(StorageVolume handle) {
        synchronized (this) {
            enter("deleteVolume");
            requireVolume(handle);
            pools.get(((VolumeHandle) handle).pool()).remove(handle.name());
        }
        afterCall("deleteVolume");
    }

    @Override
    public synchronized long memoryBytes() {
        enter("memoryBytes");
        return memoryBytes;
    }

    @Override
    public synchronized long domainMemoryBytes(Domain domain) {
        enter("domainMemoryBytes");
        Matcher memory = MEMORY.matcher(requireDomain(domain).xml);
        if (!memory.find()) {
            return 0;
        }
        long amount = Long.parseLong(memory.group(2));
        return "MiB".equals(memory.group(1)) ? amount << 20 : amount << 10;
    }

    @Override
    public synchronized HostInfo hostInfo() {
        enter("hostInfo");
        return new HostInfo(hostName, "9.0.0", "QEMU");
    }

    @Override
    public synchronized String domainCapabilities(String domainType) {
        enter("domainCapabilities");
        String xml = domainCapabilities.get(domainType);
        if (xml == null) {
            throw daemonError(LibvirtErrorCode.CONFIG_UNSUPPORTED, LibvirtErrorSource.QEMU,
                    LibvirtException.NO_SYSTEM_ERROR_NUMBER, "unsupported configuration: Emulator"
                            + " '/usr/bin/qemu-system-x86_64' does not support virt type '" + domainType + "'");
        }
        return xml;
    }

    @Override
    public synchronized boolean hasInterface(String name) {
        enter("hasInterface");
        return !missingInterfaces.contains(name);
    }

    // ---- internals ----

    /** Counts the call and throws the failure queued for it, if any (callers hold the lock). */
    private void enter(String method) {
        calls.merge(method, 1, Integer::sum);
        callLog.add(method);
        String baseMethod = method.contains("(") ? method.substring(0, method.indexOf('(')) : method;
        Deque<RuntimeException> queued = failures.get(baseMethod);
        if (queued != null && !queued.isEmpty()) {
            throw queued.poll();
        }
    }

    /** Reads up to {@code maximum} bytes of {@code data} into the volume, outside the lock. */
    private byte[] upload(String method, StorageVolume handle, InputStream data, int maximum) {
        synchronized (this) {
            enter(method);
            requireVolume(handle);
        }
        byte[] content;
        try {
            // Read outside the lock: a download may take long, and other calls must go on meanwhile.
            content = data.readNBytes(maximum);
        } catch (IOException broken) {
            // As the adapter does: the upload is aborted and says its source failed.
            throw new UploadSourceException("the upload's source failed: " + broken, broken);
        }
        synchronized (this) {
            requireVolume(handle).content = content;
        }
        return content;
    }

    private void afterCall(String method) {
        Runnable hook;
        synchronized (this) {
            Deque<Runnable> hooks = afterHooks.get(method);
            hook = hooks == null ? null : hooks.poll();
            if (hook == null && method.contains("(")) {
                Deque<Runnable> baseHooks = afterHooks.get(method.substring(0, method.indexOf('(')));
                hook = baseHooks == null ? null : baseHooks.poll();
            }
        }
        if (hook != null) {
            hook.run();
        }
    }

    private DomainRecord requireDomain(Domain handle) {
        DomainRecord domain = domains.get(handle.name());
        if (domain == null) {
            throw error(LibvirtErrorCode.NO_DOMAIN, "Domain not found: no domain with matching name '" + handle.name() + "'");
        }
        return domain;
    }

    private Map<String, VolumeRecord> requirePool(StoragePool pool) {
        Map<String, VolumeRecord> volumes = pools.get(pool.name());
        if (volumes == null) {
            throw error(LibvirtErrorCode.NO_STORAGE_POOL, "Storage pool not found: '" + pool.name() + "'");
        }
        return volumes;
    }

    private Map<String, VolumeRecord> requirePoolRecord(String pool) {
        return requirePool(new PoolHandle(pool));
    }

    private VolumeRecord requireVolume(StorageVolume handle) {
        VolumeRecord volume = requirePoolRecord(((VolumeHandle) handle).pool()).get(handle.name());
        if (volume == null) {
            throw error(LibvirtErrorCode.NO_STORAGE_VOLUME, "Storage volume not found: '" + handle.name() + "'");
        }
        return volume;
    }

    private VolumeRecord volumeAt(String path) {
        return pools.values().stream().flatMap(volumes -> volumes.values().stream())
                .filter(volume -> volume.path.equals(path)).findFirst().orElse(null);
    }

    private static long bytes(long amount, String unit) {
        return switch (unit) {
            case "KiB" -> amount << 10;
            case "MiB" -> amount << 20;
            case "GiB" -> amount << 30;
            default -> amount;
        };
    }

    private static String pathOf(String pool, String name) {
        return "/var/lib/libvirt/" + pool + "/" + name;
    }
}
