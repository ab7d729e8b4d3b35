/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: lib/kube-pod (the "pod" match key's value from the kubelet's
 * cgroup layout): the systemd and cgroupfs drivers, the three QoS classes,
 * the container runtimes' scope names, a kubelet below a parent (kind),
 * /proc/PID/cgroup files of cgroup v2, v1 and hybrid hosts, and paths that
 * are not a pod's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kube-pod.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

#define UID "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define UIDU "0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0"
#define CID "5d3c1a0b9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b"

static void check_path(const char *path, const char *want)
{
        _cleanup_free_ char *v = NULL;
        int r = kube_pod_from_path(path, &v);

        if (!want) {
                if (r != -ENXIO)
                        fprintf(stderr, "%s: expected no pod, got %d %s\n", path, r, strna(v));
                check(r == -ENXIO && !v);
                return;
        }
        if (r != 0 || !streq(v, want))
                fprintf(stderr, "%s:\n  expected %s\n  got      %d %s\n", path, want, r, strna(v));
        check(r == 0 && v && streq(v, want));
}

static void check_file(const char *text, const char *want)
{
        _cleanup_free_ char *v = NULL;
        int r = kube_pod_from_cgroup_file(text, strlen(text), &v);

        if (want ? (r != 0 || !streq(v, want)) : r != -ENXIO)
                fprintf(stderr, "file:\n%s\n  expected %s\n  got %d %s\n", text, strna(want), r,
                        strna(v));
        check(want ? r == 0 && v && streq(v, want) : r == -ENXIO);
}

int main(void)
{
        /* systemd driver (cgroup v2, or each v1 hierarchy) */
        check_path("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDU
                   ".slice/cri-containerd-" CID ".scope",
                   "besteffort/" UID "/" CID);
        check_path("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDU
                   ".slice/crio-" CID ".scope",
                   "burstable/" UID "/" CID);
        check_path("/kubepods.slice/kubepods-pod" UIDU ".slice/docker-" CID ".scope",
                   "guaranteed/" UID "/" CID);
        check_path("/kubepods.slice/kubepods-pod" UIDU ".slice/crio-conmon-" CID ".scope",
                   "guaranteed/" UID "/" CID);
        /* a process in the pod's own cgroup */
        check_path("/kubepods.slice/kubepods-pod" UIDU ".slice", "guaranteed/" UID);
        /* a nested cgroup inside a container: still that container */
        check_path("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDU
                   ".slice/cri-containerd-" CID ".scope/inner/deeper",
                   "burstable/" UID "/" CID);
        /* kind: the kubelet below a parent slice */
        check_path("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
                   "kubelet-kubepods-besteffort-pod" UIDU ".slice/cri-containerd-" CID ".scope",
                   "besteffort/" UID "/" CID);
        /* cgroupfs driver */
        check_path("/kubepods/besteffort/pod" UID "/" CID, "besteffort/" UID "/" CID);
        check_path("/kubepods/burstable/pod" UID "/" CID, "burstable/" UID "/" CID);
        check_path("/kubepods/pod" UID "/" CID, "guaranteed/" UID "/" CID);
        check_path("/kubepods/pod" UID, "guaranteed/" UID);
        /* not a pod */
        check_path("/", NULL);
        check_path("/user.slice/user-1000.slice/session-1.scope", NULL);
        check_path("/kubepods.slice", NULL);
        check_path("/kubepods.slice/kubepods-besteffort.slice", NULL);
        check_path("/kubepods/burstable", NULL);
        check_path("/kubepods/besteffort/notapod", NULL);
        check_path("/system.slice/kubepods-pod" UIDU ".slice", NULL);
        check_path("/mykubepods.slice/mykubepods-pod" UIDU ".slice", NULL);
        check_path("/kubepods/pod", NULL);
        check_path(NULL, NULL);

        /* cgroup v2 */
        check_file("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDU
                   ".slice/cri-containerd-" CID ".scope\n",
                   "besteffort/" UID "/" CID);
        /* cgroup v1 with the cgroupfs driver, the v2 line (hybrid) elsewhere */
        check_file("12:pids:/kubepods/burstable/pod" UID "/" CID "\n"
                   "4:cpu,cpuacct:/kubepods/burstable/pod" UID "/" CID "\n"
                   "1:name=systemd:/system.slice/containerd.service\n"
                   "0::/system.slice/containerd.service\n",
                   "burstable/" UID "/" CID);
        /* the v2 line first when both name pods */
        check_file("4:cpu:/kubepods/pod" UID "/x\n"
                   "0::/kubepods.slice/kubepods-pod" UIDU ".slice/crio-" CID ".scope\n",
                   "guaranteed/" UID "/" CID);
        /* no trailing newline; none is a pod */
        check_file("0::/kubepods/besteffort/pod" UID, "besteffort/" UID);
        check_file("3:cpu:/\n0::/user.slice\n", NULL);
        check_file("", NULL);
        check_file("garbage without colons\n", NULL);

        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-kube-pod: all checks passed\n");
        return 0;
}
