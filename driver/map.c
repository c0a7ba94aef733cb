// SPDX-License-Identifier: GPL-2.0
/*
 * snode: mapping pool memory and remote windows into processes.
 */

#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pfn_t.h>
#include <linux/sched/signal.h>

#include "mem.h"

/**
 * DOC: Mapping
 *
 * map.c installs the page table entries of the two kinds of mappings the
 * driver hands out: a process's own pool allocation (BAR4, mmap of
 * /dev/snodeN) and an import's window (BAR2, mmap of the import's file).
 * Both are VM_PFNMAP mappings of device memory with no struct pages behind
 * them, shared, never copied on write, cached write-back when the fabric is
 * coherent and write-combining otherwise. Their owners (mem.c, import.c)
 * decide whether a fault may be served and call in here with their lock
 * held; revocation zaps with unmap_mapping_range() under the same lock held
 * for write, so an entry installed here never outlives a revocation.
 *
 * Nothing is mapped at mmap() time: the VMA is not yet in its file's
 * address_space then, so a revocation racing with mmap() would miss
 * entries installed there. Instead the first fault maps a lot at once, so
 * that touching a window costs no fault per 4 KiB page
 * (Documentation/decisions/0003-remote-mapping-huge-pmd-vs-prepopulated-ptes.md):
 *
 * - With huge pfnmap support (CONFIG_ARCH_SUPPORTS_PMD_PFNMAP, 6.12+),
 *   ->huge_fault() maps 1 GiB (PUD) or 2 MiB (PMD) entries, one fault per
 *   entry. get_unmapped_area() aligns the VMA so that the virtual and
 *   physical addresses agree modulo the entry size. Parts of a VMA that
 *   cannot take a huge entry fall back to 4 KiB entries, one PMD's worth
 *   per fault.
 * - Without it (6.1), huge entries of device memory would carry no special
 *   bit and GUP-fast would take struct pages that do not exist, so the
 *   first fault fills the whole VMA with 4 KiB entries.
 */

#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
#define SNODE_HUGE_PFNMAP	true
#else
#define SNODE_HUGE_PFNMAP	false
#endif

/* vm_flags_mod() appeared in 6.3; driver/Kbuild looks for it */
#ifdef SNODE_HAVE_VM_FLAGS_SET
static inline void snode_vm_flags_mod(struct vm_area_struct *vma,
				      vm_flags_t set, vm_flags_t clear)
{
	vm_flags_mod(vma, set, clear);
}
#else
static inline void snode_vm_flags_mod(struct vm_area_struct *vma,
				      vm_flags_t set, vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/**
 * snode_map_prot() - the caching of device memory mappings
 * @mem: the device's global memory
 * @prot: protection to adjust
 *
 * Context: Any context.
 * Return: @prot, write-combining unless the fabric is coherent.
 */
pgprot_t snode_map_prot(struct snode_mem *mem, pgprot_t prot)
{
	prot = pgprot_decrypted(prot);
	if (!mem->coherent)
		prot = pgprot_writecombine(prot);
	return prot;
}

/**
 * snode_map_prepare() - set up a VMA of device memory
 * @mem: the device's global memory
 * @vma: the VMA being mmap()ed
 * @ops: its operations
 * @priv: its private data
 * @writable: whether the memory may ever be written through this VMA; if
 *            not, PROT_WRITE is refused now and by mprotect() later
 *
 * Context: ->mmap(), mmap_lock held for write.
 * Return: 0, -EINVAL for a private mapping (a copy-on-write copy of device
 * memory would be a snapshot nobody asked for), -EACCES for PROT_WRITE on
 * memory that is not @writable.
 */
int snode_map_prepare(struct snode_mem *mem, struct vm_area_struct *vma,
		      const struct vm_operations_struct *ops, void *priv,
		      bool writable)
{
	vm_flags_t clear = 0;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (!writable) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		clear = VM_MAYWRITE;
	}

	snode_vm_flags_mod(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND |
			   VM_DONTDUMP, clear);
	vma->vm_page_prot = snode_map_prot(mem, vma->vm_page_prot);
	vma->vm_ops = ops;
	vma->vm_private_data = priv;
	return 0;
}

static bool snode_map_pud_ok(void)
{
#if defined(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP) && defined(CONFIG_X86)
	return boot_cpu_has(X86_FEATURE_GBPAGES);
#elif defined(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP)
	return true;
#else
	return false;
#endif
}

/**
 * snode_map_window_align() - aperture alignment of a window
 * @length: the window's length
 *
 * Context: Any context.
 * Return: 1 GiB for windows that can take PUD entries, else 2 MiB.
 */
u64 snode_map_window_align(u64 length)
{
	if (SNODE_HUGE_PFNMAP && length >= PUD_SIZE && snode_map_pud_ok())
		return PUD_SIZE;
	return SNODE_APERTURE_ALIGN;
}

static vm_fault_t snode_map_insert_huge(struct vm_fault *vmf,
					unsigned int order, unsigned long pfn0)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long size = PAGE_SIZE << order;
	unsigned long addr = vmf->address & ~(size - 1);
	unsigned long pfn = pfn0 + ((addr - vma->vm_start) >> PAGE_SHIFT);
	bool __maybe_unused write = vmf->flags & FAULT_FLAG_WRITE;

	if (addr < vma->vm_start || addr + size > vma->vm_end ||
	    (pfn & ((1UL << order) - 1)))
		return VM_FAULT_FALLBACK;

	switch (order) {
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
	case PMD_ORDER:
		return vmf_insert_pfn_pmd(vmf, __pfn_to_pfn_t(pfn, PFN_DEV),
					  write);
#endif
#ifdef CONFIG_ARCH_SUPPORTS_PUD_PFNMAP
	case PUD_ORDER:
		if (!snode_map_pud_ok())
			return VM_FAULT_FALLBACK;
		return vmf_insert_pfn_pud(vmf, __pfn_to_pfn_t(pfn, PFN_DEV),
					  write);
#endif
	default:
		return VM_FAULT_FALLBACK;
	}
}

/**
 * snode_map_insert() - serve a fault on device memory
 * @mem: the device's global memory
 * @vmf: the fault
 * @order: 0 for ->fault(), else the ->huge_fault() order
 * @pfn0: the page frame mapped at @vmf->vma->vm_start
 *
 * For @order 0 the faulting page is mapped first, then the rest of the
 * range this kernel pre-populates (see DOC: Mapping); a fatal signal cuts
 * that short. Page table entries already present are left alone.
 *
 * Context: Fault handler; the caller holds the lock that revocation takes
 * for write.
 * Return: VM_FAULT_NOPAGE, VM_FAULT_FALLBACK for a huge order that does not
 * fit, or an error.
 */
vm_fault_t snode_map_insert(struct snode_mem *mem, struct vm_fault *vmf,
			    unsigned int order, unsigned long pfn0)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long start, end, addr;
	vm_fault_t ret;
	pgprot_t prot;

	if (order)
		return snode_map_insert_huge(vmf, order, pfn0);

	/*
	 * vm_page_prot lacks write permission when the VMA wants write
	 * notification (pfn_mkwrite); map writable VMAs writable from the
	 * start all the same.
	 */
	prot = snode_map_prot(mem, vm_get_page_prot(vma->vm_flags));

	addr = vmf->address & PAGE_MASK;
	ret = vmf_insert_pfn_prot(vma, addr,
				  pfn0 + ((addr - vma->vm_start) >> PAGE_SHIFT),
				  prot);
	if (ret & VM_FAULT_ERROR)
		return ret;

	if (SNODE_HUGE_PFNMAP) {
		start = max(vma->vm_start, addr & PMD_MASK);
		end = min(vma->vm_end, (addr & PMD_MASK) + PMD_SIZE);
	} else {
		start = vma->vm_start;
		end = vma->vm_end;
	}
	for (addr = start; addr < end; addr += PAGE_SIZE) {
		if (vmf_insert_pfn_prot(vma, addr,
					pfn0 + ((addr - vma->vm_start) >> PAGE_SHIFT),
					prot) & VM_FAULT_ERROR)
			break;
		if (!(addr & (PMD_SIZE - PAGE_SIZE)) ||
		    addr + PAGE_SIZE == end) {
			if (fatal_signal_pending(current))
				break;
			cond_resched();
		}
	}
	return VM_FAULT_NOPAGE;
}

/**
 * snode_map_insert_zero() - map the zero page read-only at a fault address
 * @vmf: the fault
 *
 * Used for revoked imports that asked for it. A store then reaches
 * ->pfn_mkwrite() (shared writable VMA) or the arch fault handler
 * (read-only VMA), never the zero page.
 *
 * Context: Fault handler.
 * Return: VM_FAULT_NOPAGE or an error.
 */
vm_fault_t snode_map_insert_zero(struct vm_fault *vmf)
{
	unsigned long addr = vmf->address & PAGE_MASK;

	if (vmf->flags & FAULT_FLAG_WRITE)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn_prot(vmf->vma, addr, my_zero_pfn(addr),
				   vm_get_page_prot(VM_READ));
}

static unsigned long snode_map_default_area(struct file *filp,
					    unsigned long addr,
					    unsigned long len,
					    unsigned long pgoff,
					    unsigned long flags)
{
/* mm->get_unmapped_area() became mm_get_unmapped_area() in 6.10 */
#ifdef SNODE_HAVE_MM_GET_UNMAPPED_AREA
	return mm_get_unmapped_area(current->mm, filp, addr, len, pgoff,
				    flags);
#else
	return current->mm->get_unmapped_area(filp, addr, len, pgoff, flags);
#endif
}

/**
 * snode_map_get_unmapped_area() - place a mapping for huge entries
 * @filp: the file being mapped
 * @addr: address hint
 * @len: length
 * @pgoff: page offset of the mapping; offset and address agree modulo the
 *         huge entry size, which is what the device memory needs too (the
 *         pool and the aperture are naturally aligned, and so are windows
 *         and large allocations in them)
 * @flags: MAP_* flags
 *
 * Ask for @len plus the alignment and trim, as __thp_get_unmapped_area()
 * does, with 1 GiB alignment for mappings of 1 GiB or more. A hint that
 * can be honoured as given is honoured.
 *
 * Context: Process context, mmap_lock held for write.
 * Return: the address, or a negative errno cast to unsigned long.
 */
unsigned long snode_map_get_unmapped_area(struct file *filp,
					  unsigned long addr,
					  unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags)
{
	unsigned long align, len_pad, ret, off = pgoff << PAGE_SHIFT;

	if (!SNODE_HUGE_PFNMAP || in_compat_syscall())
		goto fallback;
	if (len >= PUD_SIZE && snode_map_pud_ok())
		align = PUD_SIZE;
	else if (len >= PMD_SIZE)
		align = PMD_SIZE;
	else
		goto fallback;

	len_pad = len + align;
	if (len_pad < len || off + len_pad < off)
		goto fallback;
	ret = snode_map_default_area(filp, addr, len_pad, pgoff, flags);
	if (IS_ERR_VALUE(ret))
		goto fallback;	/* maybe the padding did not fit */
	if (ret == addr)
		return addr;
	return ret + ((off - ret) & (align - 1));

fallback:
	return snode_map_default_area(filp, addr, len, pgoff, flags);
}
