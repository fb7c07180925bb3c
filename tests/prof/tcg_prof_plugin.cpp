// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts, per translation-block start address, the
 * guest instructions executed and the blocks run: a whole-guest profile
 * under emulation, where guest perf only samples the idle loop. Counting
 * is inline (no callback per block). A thread watches $TCG_PROF_DIR for
 * files named snap-NAME and answers each with prof-NAME.txt
 * ("vaddr insns blocks" per line, hex vaddr), then removes the request, so
 * a guest workload can bracket what it measures (tests/prof/tcg-prof).
 *
 * Debian's QEMU (7.2) loads plugins but does not ship qemu-plugin.h: the
 * handful of API calls used here are declared below as in that header,
 * plugin API version 1.
 */
#include <dirent.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

extern "C" {
typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, enum qemu_plugin_op,
                                              void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
}

#define PLUGIN_EXPORT __attribute__((visibility("default")))

extern "C" PLUGIN_EXPORT const int qemu_plugin_version = 1;

namespace {

struct Counts {
  uint64_t insns = 0;
  uint64_t blocks = 0;
};

// Owned by the plugin for QEMU's lifetime: the inline counters point into
// it, so entries are never freed (QEMU unloads plugins only at exit).
struct Profile {
  std::mutex lock;
  std::unordered_map<uint64_t, Counts *> by_vaddr;
  std::string dir;
};

Profile *profile;

void on_translate(qemu_plugin_id_t, struct qemu_plugin_tb *tb)
{
  uint64_t va = qemu_plugin_tb_vaddr(tb);
  Counts *c;
  {
    std::lock_guard<std::mutex> g(profile->lock);
    Counts *&slot = profile->by_vaddr[va];
    if (!slot)
      slot = new Counts;  // a retranslated block counts on
    c = slot;
  }
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->insns,
                                           qemu_plugin_tb_n_insns(tb));
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->blocks, 1);
}

void write_snapshot(const std::string &name)
{
  std::string path = profile->dir + "/prof-" + name + ".txt";
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f)
    return;
  {
    std::lock_guard<std::mutex> g(profile->lock);
    // The vCPUs keep counting: a snapshot is as of about now.
    for (const auto &[va, c] : profile->by_vaddr)
      if (c->insns)
        std::fprintf(f, "%llx %llu %llu\n", (unsigned long long)va,
                     (unsigned long long)c->insns, (unsigned long long)c->blocks);
  }
  std::fclose(f);
  std::rename(tmp.c_str(), path.c_str());
}

void *watch(void *)
{
  for (;;) {
    if (DIR *d = opendir(profile->dir.c_str())) {
      while (struct dirent *e = readdir(d)) {
        if (std::strncmp(e->d_name, "snap-", 5))
          continue;
        std::string request = profile->dir + "/" + e->d_name;
        write_snapshot(e->d_name + 5);
        unlink(request.c_str());
      }
      closedir(d);
    }
    usleep(5000);
  }
  return nullptr;
}

}  // namespace

extern "C" PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *, int,
                                                 char **)
{
  const char *dir = std::getenv("TCG_PROF_DIR");
  pthread_t t;

  if (!dir || !*dir) {
    std::fprintf(stderr, "tcg-prof plugin: set TCG_PROF_DIR\n");
    return -1;
  }
  profile = new Profile;
  profile->dir = dir;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  if (pthread_create(&t, nullptr, watch, nullptr))
    return -1;
  pthread_detach(t);
  return 0;
}
